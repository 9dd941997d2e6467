# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared fixtures: databases (SQLite and a real PostgreSQL) and the mail rig plugin.

The PostgreSQL tests run on a private cluster of the installed server, one per test process
(:class:`tests.e2e.pgcluster.PgCluster`, started on first use), with fsync and synchronous
commits off: its data is thrown away, so waiting for the disk at each commit and each
``DROP DATABASE``'s checkpoint bought nothing (on the machine's cluster a test's database cost
about 1 s to create, migrate and drop; here about 0.3 s). ``MAILBOT_TEST_PG_URL`` names
another server instead (an admin URL whose role may create databases)."""

from __future__ import annotations

import functools
import gc
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Dialect, Engine
from sqlalchemy.util import LRUCache

from mailbot.demo.scripts import demos
from mailbot.store import db
from tests.demo_plays import DemoPlays
from tests.e2e.pgcluster import PgCluster
from tests.pgpool import PgPool

pytest_plugins = ["tests.rig_fixtures"]

#: another PostgreSQL server for the tests (else each test process starts its own cluster)
PG_SERVER_URL = os.environ.get("MAILBOT_TEST_PG_URL", "")


@pytest.fixture(scope="session")
def demo_plays(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> DemoPlays:
    """Each demo game played once for the whole run from the installed wheel (``tests/demo_plays.py``):
    under xdist the run's temporary folder, parent of each worker's own, is shared by its processes."""
    base = tmp_path_factory.getbasetemp()
    return DemoPlays((base if worker_id == "master" else base.parent) / "demo-plays")


#: how many test files reading demo games make a run start every game at once
STARTING_FILES = 3


@pytest.fixture(scope="session", autouse=True)
def _demo_games_started(request: pytest.FixtureRequest) -> Iterator[None]:
    """When the run holds the tests of several files that read demo games (the whole suite),
    every game starts at once in the background: a test that needs one later finds it played,
    or nearly so. (A run of one or two such files plays only the games its tests ask for.) At
    the end this process waits for the games it started: another test process may read them."""
    items = request.session.items
    readers = {item.path for item in items if "demo_plays" in getattr(item, "fixturenames", ())}
    if not readers:
        yield
        return
    plays: DemoPlays = request.getfixturevalue("demo_plays")
    if len(readers) >= STARTING_FILES:
        plays.start([demo.plugin for demo in demos()])
    yield
    plays.wait_started()


#: statements compiled kept for the whole test process, per kind of database (an engine keeps 500)
STATEMENTS = 5000


class _StatementsCompiledOnce:
    """``db.make_engine`` for the tests: every engine of one kind of database (SQLite, PostgreSQL)
    in a test process compiles its SQL into one cache, as the one engine of a moderator that has
    been running a while has compiled its statements long since.

    Each test's bot opens an engine of its own, and SQLAlchemy keys its cache of compiled
    statements (the engine's and each mapper's) by the engine's dialect object: every test
    compiled every statement it ran afresh, a third of the time a duel took to start (90 ms
    against 63 ms with the statements compiled). The first engine of a kind lends its dialect,
    once its first connection has set it up for the server (``dialect.initialize``), and a
    larger cache to the engines made after it; they then read the compiled statements the
    earlier tests left. Compiling is the same for every engine of a kind here (the same
    options, the same server), and what is compiled is not what is tested: every statement is
    still executed on the test's own database."""

    def __init__(self, make: Callable[[str], Engine]) -> None:
        self.make = make
        self.kinds: dict[tuple[str, str], tuple[Dialect, LRUCache[Any, Any]]] = {}

    def __call__(self, url: str) -> Engine:
        engine = self.make(url)
        kind = (engine.dialect.name, engine.driver)
        if kind in self.kinds:
            dialect, cache = self.kinds[kind]
            engine.dialect = engine.pool._dialect = dialect
            engine._compiled_cache = cache
        else:  # after create_engine's own listener, which sets the dialect up
            sa.event.listen(engine.pool, "connect", functools.partial(self._lend, kind, engine), once=True)
        return engine

    def _lend(self, kind: tuple[str, str], engine: Engine, *_: object) -> None:
        dialect, cache = self.kinds.setdefault(kind, (engine.dialect, LRUCache(STATEMENTS)))
        if dialect is engine.dialect:
            engine._compiled_cache = cache


@pytest.fixture(scope="session", autouse=True)
def _statements_compiled_once() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(db, "make_engine", _StatementsCompiledOnce(db.make_engine))
        yield


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    """The admin URL of the PostgreSQL server this test process makes its databases on."""
    if PG_SERVER_URL:
        yield PG_SERVER_URL
        return
    try:
        cluster = PgCluster(fast=True)
        cluster.start()
    except (OSError, RuntimeError) as exc:
        pytest.fail(f"cannot start a PostgreSQL cluster for the tests (run make test): {exc}")
    try:
        yield cluster.url.replace("postgresql://", "postgresql+psycopg://", 1)
    finally:
        cluster.close()


def _pg_database(admin_url: str, template: str = "") -> Iterator[str]:
    """A new database on the server of ``admin_url`` (a copy of ``template``, else empty)."""
    name = f"mailbot_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    copied = f' TEMPLATE "{template}"' if template else ""
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"{copied}'))
    except sa.exc.OperationalError as exc:
        admin.dispose()
        pytest.fail(f"PostgreSQL is not reachable at {admin_url} (run make test): {exc}")
    try:
        yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        try:
            _drop(admin, name)
        finally:
            admin.dispose()


def _migrate(url: str) -> None:
    engine = db.make_engine(url)
    try:
        db.upgrade(engine)
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def _pg_template(pg_admin_url: str) -> Iterator[str]:
    """A database of this test process migrated to the newest revision, which every
    PostgreSQL test database copies (``CREATE DATABASE ... TEMPLATE``)."""
    for url in _pg_database(pg_admin_url):
        _migrate(url)
        yield str(sa.make_url(url).database)


@pytest.fixture(scope="session")
def _pg_pool(pg_admin_url: str, _pg_template: str) -> Iterator[PgPool]:
    """The test databases of this test process, used again (``tests/pgpool.py``)."""
    admin = sa.create_engine(pg_admin_url, isolation_level="AUTOCOMMIT")
    pool = PgPool(admin, _pg_template, _drop)
    try:
        yield pool
    finally:
        pool.close()
        admin.dispose()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the newest revision, which every SQLite test database copies."""
    path = tmp_path_factory.mktemp("template") / "mailbot.db"
    _migrate(f"sqlite:///{path}")  # its last connection closed: the WAL is folded into the file
    return path


def _drop(admin: Engine, name: str) -> None:
    """DROP ... WITH (FORCE) may meet an autovacuum worker in the fresh database, which a
    role without pg_signal_backend may not terminate: the worker ends soon, so try again."""
    for attempt in range(20):
        try:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            return
        except sa.exc.ProgrammingError:
            if attempt == 19:
                raise
            time.sleep(0.25)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database of each kind, its schema at the newest revision: a copy of one migrated
    once per test process (running the migrations took 0.2-0.7 s a test; upgrading a copy is
    a no-op, and tests/store/test_store.py checks what the migrations make). A PostgreSQL one
    may be an earlier test's, emptied to the same state (``tests/pgpool.py``)."""
    if request.param == "sqlite":
        shutil.copyfile(request.getfixturevalue("_sqlite_template"), tmp_path / "mailbot.db")
        yield f"sqlite:///{tmp_path}/mailbot.db"
    else:
        pool: PgPool = request.getfixturevalue("_pg_pool")
        name = pool.take()
        try:
            yield pool.url(name)
        finally:
            pool.give_back(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each kind (for what the migrations themselves make)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/mailbot.db"
    else:
        yield from _pg_database(request.getfixturevalue("pg_admin_url"))


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """A migrated database of each kind."""
    eng = db.make_engine(db_url)
    db.upgrade(eng)
    yield eng
    eng.dispose()


#: where in a test process's first batch its first slow test stands, and its last (fractions)
SLOW_FROM, SLOW_TO = 0.1, 0.85


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow (many seconds each, mostly waiting on servers, processes or
    deadlines) are dealt out to the test processes and spaced out in each one's first batch.

    The scheduler of ``make test`` (``--dist worksteal``) hands each of its W processes a run of
    the collected tests at once: the first ``N // W``, then half of the rest, and so on. The
    slow tests of the e2e folder stood together near the end of the collection: one process
    spent the run's last half minute on them while the others had nothing left. Started all
    at once, they waited side by side while the cores idled. Spaced out, each process waits on
    one now and then while the others work. None is first (the run's start is its busiest
    time: the wheel is built and the demo games play) or last. Two runs took 386 s and 387 s,
    where the collection's order took 393 s and 394 s (started all first: no faster, runs with a
    per-test timing log said).
    Each process collects the same order (it depends only on the collection and W)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    slow = [item for item in items if item.get_closest_marker("slow")]
    if workers < 2 or not slow:
        return
    rest = [item for item in items if not item.get_closest_marker("slow")]
    order: list[pytest.Item] = []
    for worker in range(workers):
        size = (len(items) - len(order)) // (workers - worker)  # this process's first batch
        share = slow[worker::workers]
        batch = rest[: max(size - len(share), 0)]
        rest = rest[len(batch) :]
        for n, item in enumerate(share):  # each at its place, counted from the batch's end
            where = SLOW_FROM + (SLOW_TO - SLOW_FROM) * (n + 0.5) / len(share)
            batch.insert(round(where * (len(batch) + n)), item)
        order += batch
    items[:] = order + rest


#: allocations between two young-generation collections in a test process (Python's default: 700)
YOUNG_COLLECTION = 100_000


def pytest_configure(config: pytest.Config) -> None:
    """A test builds and drops thousands of short-lived objects (rows, letters, parsed mail), and
    the cyclic collector walked the young ones every 700 allocations, finding little: the
    services' and Flat Top tests took 1-3 % less CPU without it (runs side by side: 41.5 s and
    40.4 s, 35.6 s and 35.2 s). The tests that open sockets still collect at their end
    (``_collect_garbage_after_network_tests``), so a leaked transport is still said by the test
    that leaked it."""
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the test process has built by now (modules, tables, the collected tests) lives as long
    as the process: moved out of the cyclic collector's way (``gc.freeze``), as the moderator
    does with what it builds at start (``app.freeze_long_lived``), so no collection during the
    tests walks it again."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _logging_left_as_found() -> Iterator[None]:
    """A test that sets the service's logging up (``mailbot run``, ``logsetup.configure``, the
    command line's ``basicConfig``) points the root logger at the stream it had then, often a
    CliRunner's captured stderr that is closed once it returns: a later test in the same process
    would have each log line end in "--- Logging error ---" on its own captured output. The
    handlers a test adds (pytest's own aside) go when it ends, and the root's level is put back."""
    root = logging.getLogger()
    before, level = set(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in before and type(handler) in (logging.StreamHandler, logging.FileHandler):
            root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture(autouse=True)
def _collect_garbage_after_network_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests that open sockets collect garbage at their end, so an unclosed transport is
    reported (warnings are errors) by the test that leaked it, not by whichever test the
    garbage collector happens to run in later.

    What outlives the test (caches of rules, templates and plans; the fixtures of a wider scope)
    is frozen after the collection, so the next test's collection walks only what has been made
    since: a full collection walked the whole heap and took 0.4 s at each test's end."""
    yield
    if any(part in request.node.nodeid for part in ("tests/adapters/", "tests/e2e/", "tests/services/")):
        gc.collect()
        gc.freeze()


@pytest.fixture
def cli_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A migrated SQLite store for the command line, named by the environment as a GM would."""
    from typer.testing import CliRunner

    from mailbot.cli import app

    url = f"sqlite:///{tmp_path}/cli.db"
    monkeypatch.setenv("MAILBOT_STORE__URL", url)
    monkeypatch.setenv("MAILBOT_BOT__ADDRESS", "bot@example.test")
    monkeypatch.setenv("MAILBOT_BOT__GM_ADDRESS", "gm@example.test")
    assert CliRunner().invoke(app, ["db", "upgrade"]).exit_code == 0
    return url
