# SPDX-License-Identifier: GPL-3.0-or-later
"""What the store is asked, counted for the benchmarks (``bench/workers.py``): statements by
kind and table, transactions, connections taken from the pool (each one a ping), and the
events the loops note (a look for letters that found none, a letter left to another worker,
an outbox claim). Timings on a shared machine move by a third between runs; these counts do
not, so they show what a second worker adds.

Off unless the environment names a folder in ``BENCH_SQL_COUNTS`` (the benchmark sets it for
the workers it starts): then every process that makes an engine writes its counts to
``<folder>/<pid>.json`` every quarter second and when it ends, and the benchmark adds them
up before and after its burst.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

#: the folder the counts go to (None: nothing is counted)
ENV = "BENCH_SQL_COUNTS"
WRITE_SECONDS = 0.25

_FOLDER = os.environ.get(ENV) or None
_counts: Counter[str] = Counter()
_kinds: dict[str, str] = {}  # statement text -> its kind (the same few statements run again and again)
_lock = threading.Lock()
_writer: threading.Thread | None = None

_ADVISORY = re.compile(r"\b(pg_\w*advisory\w*|pg_notify)\b", re.IGNORECASE)
_TABLE = re.compile(r"\b(?:FROM|INTO|UPDATE)\s+\"?(\w+)", re.IGNORECASE)


def enabled() -> bool:
    return _FOLDER is not None


def note(name: str, n: int = 1) -> None:
    """Count an event of the loops (``letters.empty``, ``outbox.claims`` ...) when counting."""
    if _FOLDER is not None and n:
        with _lock:
            _counts[name] += n


def kind(statement: str) -> str:
    """``sql <VERB> <table or function>``: ``sql SELECT inbound``, ``sql SELECT pg_try_advisory_lock``."""
    found = _kinds.get(statement)
    if found is None:
        verb = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "?"
        special = _ADVISORY.search(statement)
        table = _TABLE.search(statement)
        what = special.group(1).lower() if special else table.group(1).lower() if table else ""
        found = _kinds[statement] = f"sql {verb} {what}".rstrip()
    return found


def watch(engine: Engine) -> None:
    """Count what ``engine`` is asked, when counting (``db.make_engine`` calls it)."""
    if _FOLDER is None:
        return
    sa.event.listen(engine, "before_cursor_execute", _statement)
    sa.event.listen(engine, "begin", lambda _conn: note("tx begin"))
    sa.event.listen(engine, "commit", lambda _conn: note("tx commit"))
    sa.event.listen(engine, "rollback", lambda _conn: note("tx rollback"))
    sa.event.listen(engine.pool, "checkout", lambda *_args: note("pool checkout"))
    _start_writer()


def _statement(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    note(kind(statement))


def snapshot() -> dict[str, int]:
    with _lock:
        return dict(_counts)


def _write() -> None:
    if _FOLDER is None:
        return
    Path(_FOLDER).mkdir(parents=True, exist_ok=True)
    path = Path(_FOLDER) / f"{os.getpid()}.json"
    spare = path.with_suffix(".tmp")
    spare.write_text(json.dumps(snapshot()))
    spare.replace(path)  # the reader never sees half a file


def _start_writer() -> None:
    global _writer
    with _lock:
        if _writer is not None:
            return
        _writer = threading.Thread(target=_write_often, name="mailbot-counts", daemon=True)
    atexit.register(_write)
    _writer.start()


def _write_often() -> None:
    while True:
        _write()
        time.sleep(WRITE_SECONDS)


def gather(folder: Path) -> Counter[str]:
    """The counts of every process that wrote to ``folder`` so far, added up."""
    total: Counter[str] = Counter()
    for path in folder.glob("*.json"):
        try:
            total.update(json.loads(path.read_text()))
        except (OSError, ValueError):  # replaced as we read it: its next write has the same and more
            continue
    return total
