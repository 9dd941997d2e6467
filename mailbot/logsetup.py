# SPDX-License-Identifier: GPL-3.0-or-later
"""Logging for ``mailbot run``: one readable line, or one JSON object, per record.

Standard library only. The JSON form carries a record's ``extra`` fields
(``game``, ``seat``, ``outcome``...) as top-level keys, so a log shipper can
filter by game without parsing messages. Call sites must never pass secrets,
order text or sealed values as extras: logs are shared with GMs and admins.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

Format = Literal["text", "json"]
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

# The attributes every LogRecord has; anything else on a record came in through ``extra``.
_STANDARD = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {
    "message",
    "asctime",
    "taskName",
}

# Libraries that are chatty below WARNING: APScheduler reports every job run at INFO, Alembic
# lists its plugins at every start;
# aioimaplib logs every protocol line at DEBUG (passwords included, so it stays quiet even at DEBUG).
_QUIET = ("apscheduler", "alembic.runtime.plugins")
_ALWAYS_QUIET = ("aioimaplib",)


def extras(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a call site added with ``extra=``."""
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (ISO 8601, UTC), level, logger, message, extras, exc_info."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in extras(record).items():
            entry.setdefault(key, value)
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``2026-11-23T13:09:22.123Z INFO mailbot.services.inbox.inbound: message key=value ...``"""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        return stamp.replace("+00:00", "Z")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        fields = " ".join(f"{k}={v}" for k, v in extras(record).items())
        return f"{line} [{fields}]" if fields else line


def configure(level: str = "INFO", fmt: Format = "text", *, stream: TextIO | None = None) -> None:
    """Route the root logger to ``stream`` (stderr: journald picks it up) in the chosen form.

    Replaces any handler set before, so calling it twice does not double every line.
    """
    name = level.upper()
    if name not in LEVELS:
        raise ValueError(f"unknown log level {level!r}; one of {', '.join(LEVELS)}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(name)
    for quiet in _QUIET:
        logging.getLogger(quiet).setLevel(logging.DEBUG if name == "DEBUG" else logging.WARNING)
    for quiet in _ALWAYS_QUIET:
        logging.getLogger(quiet).setLevel(logging.WARNING)
