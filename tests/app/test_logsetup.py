# SPDX-License-Identifier: GPL-3.0-or-later
"""Logging for ``mailbot run``: the two formats, and what the letter and turn lines may say.

The letter and turn lines are checked through the game harness (SQLite,
injected time): one INFO line per letter, with the seat and game when known,
and never the letter's orders, its secret or a sealed value.
"""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot.logsetup import JsonFormatter, TextFormatter, configure
from tests.services.game_helpers import Harness
from tests.services.helpers import letter

NORTH, SOUTH = "north@players.test", "south@players.test"
INBOUND, TURNS = "mailbot.services.inbox.inbound", "mailbot.services.play.turns"
TURN_FIELDS = {
    "time",
    "level",
    "logger",
    "message",
    "game",
    "step",
    "attempt",
    "defaulted",
    "rolls",
    "finished",
}


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """configure() replaces the root handlers (pytest's capture among them): put everything back."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    quiet = {
        name: logging.getLogger(name).level
        for name in ("apscheduler", "aioimaplib", "alembic.runtime.plugins")
    }
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    for name, old in quiet.items():
        logging.getLogger(name).setLevel(old)


def _configured(level: str, fmt: str) -> io.StringIO:
    stream = io.StringIO()
    configure(level, "json" if fmt == "json" else "text", stream=stream)
    return stream


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_parse_and_carry_extras() -> None:
    stream = _configured("INFO", "json")
    log = logging.getLogger("mailbot.test")
    log.info("letter %s answered", 7, extra={"game": 3, "seat": "north", "outcome": "answered"})
    log.debug("not shown at INFO")
    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["message"] == "letter 7 answered"
    assert (entry["level"], entry["logger"]) == ("INFO", "mailbot.test")
    assert (entry["game"], entry["seat"], entry["outcome"]) == (3, "north", "answered")
    assert entry["time"].endswith("+00:00") and "T" in entry["time"]
    assert "exc_info" not in entry


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_include_the_exception() -> None:
    stream = _configured("INFO", "json")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("mailbot.test").exception("letter %s shunted", 9, extra={"outcome": "shunted"})
    (line,) = stream.getvalue().splitlines()  # the traceback is inside the one object
    entry = json.loads(line)
    assert entry["level"] == "ERROR" and entry["outcome"] == "shunted"
    assert "Traceback" in entry["exc_info"] and "ValueError: boom" in entry["exc_info"]


@pytest.mark.usefixtures("restore_logging")
def test_text_is_one_readable_line_with_the_extras() -> None:
    stream = _configured("info", "text")
    logging.getLogger("mailbot.test").warning("step %s resolved", "T1.orders", extra={"game": 2})
    (line,) = stream.getvalue().splitlines()
    stamp, level, logger, rest = line.split(" ", 3)
    assert stamp.endswith("Z") and (level, logger) == ("WARNING", "mailbot.test:")
    assert rest == "step T1.orders resolved [game=2]"


@pytest.mark.usefixtures("restore_logging")
def test_configure_twice_does_not_double_lines() -> None:
    _configured("INFO", "text")
    stream = _configured("INFO", "json")
    logging.getLogger("mailbot.test").info("once")
    assert len(stream.getvalue().splitlines()) == 1


@pytest.mark.usefixtures("restore_logging")
def test_apscheduler_is_quiet_at_info_and_chatty_at_debug() -> None:
    stream = _configured("INFO", "json")
    logging.getLogger("apscheduler.scheduler").info("Added job")
    logging.getLogger("apscheduler.executors.default").warning("job missed")
    assert [json.loads(line)["message"] for line in stream.getvalue().splitlines()] == ["job missed"]
    stream = _configured("DEBUG", "json")
    logging.getLogger("apscheduler.scheduler").debug("Looking for jobs to run")
    assert "Looking for jobs to run" in stream.getvalue()
    logging.getLogger("aioimaplib.aioimaplib").debug("LOGIN user password")  # protocol lines hold passwords
    assert "password" not in stream.getvalue()


@pytest.mark.usefixtures("restore_logging")
def test_unknown_level_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        configure("LOUD", "text")


# -- what the services log ------------------------------------------------------------


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/log.db")
    yield harness
    harness.bot.engine.dispose()


def _started(h: Harness) -> tuple[int, str, str]:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", SOUTH)
    north, south = h.seat(game_id, "north"), h.seat(game_id, "south")
    return game_id, north.secret, south.secret


def _lines(caplog: pytest.LogCaptureFixture, logger: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == logger]


def _rendered(record: logging.LogRecord) -> str:
    """Everything a record can put into a log: its JSON and its text form."""
    return JsonFormatter().format(record) + "\n" + TextFormatter().format(record)


def test_one_info_line_per_letter_without_its_body_or_secret(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, secret, _ = _started(h)
    caplog.set_level(logging.INFO)
    caplog.clear()
    h.mail(NORTH, f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    (record,) = _lines(caplog, INBOUND)
    assert record.levelno == logging.INFO
    entry = json.loads(JsonFormatter().format(record))
    assert (entry["outcome"], entry["game"], entry["seat"]) == ("answered", game_id, "north")
    assert entry["commands"] == ["ORDERS"]
    assert secret not in _rendered(record)
    assert "ATTACK" not in _rendered(record) and "DEFEND" not in _rendered(record)


def test_refused_ignored_and_stranger_letters_are_logged_once_each(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, secret, _ = _started(h)
    caplog.set_level(logging.INFO)
    caplog.clear()
    h.mail(NORTH, f"[DU-{game_id} nope99] orders", "ORDERS\nATTACK 3\nEND\n")  # wrong secret
    h.mail("mallory@evil.test", f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 3\nEND\n")  # stolen
    h.bot.inject(letter(sender=NORTH, subject="Out of office", headers={"Auto-Submitted": "auto-replied"}))
    h.bot.processor.process_pending()
    h.mail("someone@else.test", "HELP")
    records = _lines(caplog, INBOUND)
    outcomes = [json.loads(JsonFormatter().format(r))["outcome"] for r in records]
    assert outcomes == ["refused", "refused", "ignored", "answered"]
    assert all(r.levelno == logging.INFO for r in records)
    for record in records:
        assert secret not in _rendered(record) and "ATTACK" not in _rendered(record)
        assert "mallory" not in _rendered(record)  # no addresses either
        assert "seat" not in json.loads(JsonFormatter().format(record))


def test_a_shunted_letter_is_one_error_line(
    h: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("handler bug")

    monkeypatch.setattr(h.bot.processor, "_send_reply", broken)
    caplog.set_level(logging.INFO)
    h.mail("someone@else.test", "HELP")
    (record,) = _lines(caplog, INBOUND)
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert json.loads(JsonFormatter().format(record))["outcome"] == "shunted"


def test_each_resolved_step_is_logged_without_orders_or_sealed_values(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, north, south = _started(h)
    h.mail(NORTH, f"[DU-{game_id} {north}] orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    caplog.set_level(logging.INFO)
    caplog.clear()
    h.tick(49 * 3600)  # south stays silent: defaulted
    (record,) = _lines(caplog, TURNS)
    entry = json.loads(JsonFormatter().format(record))
    assert record.levelno == logging.INFO
    assert (entry["game"], entry["step"], entry["defaulted"]) == (game_id, "T1.orders", ["south"])
    assert isinstance(entry["rolls"], int) and entry["finished"] is False
    assert "ATTACK" not in _rendered(record) and north not in _rendered(record)
    assert set(entry) == TURN_FIELDS
    h.mail(NORTH, f"[DU-{game_id} {north}] bid", "SEAL bid 2\n")
    h.mail(SOUTH, f"[DU-{game_id} {south}] bid", "SEAL bid 1\n")
    caplog.clear()
    h.tick(13 * 3600)
    (record,) = _lines(caplog, TURNS)
    assert json.loads(JsonFormatter().format(record))["defaulted"] == []
    assert re.fullmatch(
        rf"game {game_id} step T1\.bid resolved: \d+ roll\(s\), defaulted: none", record.getMessage()
    )
    assert set(json.loads(JsonFormatter().format(record))) == TURN_FIELDS  # nothing else rides along
