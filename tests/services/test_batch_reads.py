# SPDX-License-Identifier: GPL-3.0-or-later
"""A batch of letters reads its games, seats, open steps, orders and chain heads once, keeps them
for its transaction (SQLite, ``transactions.kept``) and flushes once per letter: and ends exactly
as the same letters handled one transaction each, which keeps nothing."""

from __future__ import annotations

import itertools
import logging
import random
import re
import secrets
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import inspect as sa_inspect
from sqlmodel import Session, col, select

from mailbot.core.commands import Command
from mailbot.services.base import queries
from mailbot.services.base.transactions import begin_writing
from mailbot.services.inbox import inbound
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.play import mailgame
from mailbot.store import repo
from mailbot.store.game_tables import ChainRow, Game, OrderSet, Report, RollRow, Seat, StepRow, StepState
from mailbot.store.models import Inbound, Outbound
from tests.conftest import _pg_database
from tests.services.game_helpers import Harness
from tests.services.helpers import GM, letter

TABLES: tuple[type[Any], ...] = (Game, Seat, StepRow, OrderSet, RollRow, Report, ChainRow, Inbound, Outbound)
DAYS_3 = 3 * 24 * 3600


@pytest.fixture
def same_randomness(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Secrets, salts, seeds and Message-IDs drawn from a seeded generator: two worlds, one draw."""

    def reset() -> None:
        rng = random.Random(7)
        monkeypatch.setattr(secrets, "token_hex", lambda n=32: rng.randbytes(n).hex())
        monkeypatch.setattr(secrets, "token_bytes", lambda n=32: rng.randbytes(n))
        monkeypatch.setattr(secrets, "choice", lambda seq: seq[rng.randrange(len(seq))])
        monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=rng.getrandbits(128)))

    return reset


def _boom_after_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    """A letter whose subject says BOOM fails after its orders were stored: it is shunted."""
    real = mailgame.MailGame.orders

    def orders(self: mailgame.MailGame, command: Command, ctx: Context, reply: Reply) -> None:
        real(self, command, ctx, reply)
        if "BOOM" in ctx.letter.subject:
            raise RuntimeError("a bug after the orders were stored")

    monkeypatch.setattr(mailgame.MailGame, "orders", orders)


class World:
    """Games and letters for the comparison; ``handle`` handles what is stored."""

    def __init__(self, url: str, handle: Callable[[Harness], None]) -> None:
        self.h = Harness(url)
        self.handle = handle
        self.ids = itertools.count(1)
        self.games = [self.h.create() for _ in range(3)]
        self.address: dict[tuple[int, str], str] = {}
        for game in self.games[:2]:
            for name in ("north", "south"):
                self.address[game, name] = f"{name}{game}@players.test"
                self.h.invite(game, name, self.address[game, name])
        self.h.flush()

    def tag(self, game: int, name: str = "") -> str:
        secret = self.h.seat(game, name).secret if name else self.h.game(game).gm_secret
        return f"[DU-{game} {secret}]"

    def put(self, game: int, name: str, subject: str, body: str, **headers: str) -> None:
        self.h.clock.advance(1)
        sender = self.address.get((game, name), GM)
        message_id = f"w{next(self.ids)}@players.test"
        self.h.bot.inject(
            letter(sender=sender, subject=subject, body=body, message_id=message_id, headers=headers)
        )

    def run(self) -> None:
        self.handle(self.h)
        self.h.flush()

    def step_letter(self, game: int, name: str) -> str:
        with Session(self.h.bot.engine) as session:
            query = select(Outbound.message_id).where(Outbound.game_id == game, Outbound.seat == name)
            return (
                session.exec(query.where(Outbound.step_key != "").order_by(col(Outbound.id).desc())).first()
                or ""
            )


def orders(attack: int, defend: int) -> str:
    return f"ORDERS\nATTACK {attack}\nDEFEND {defend}\nEND\n"


def _play(world: World) -> None:
    one, two, joining = world.games
    for name in ("north", "south"):  # joined by mail, amid letters of running games
        world.address[joining, name] = f"{name}{joining}@players.test"
        code = world.h.seat(joining, name).invite_code
        world.put(joining, name, "join", f"JOIN {joining} {name} {code}\n")
        world.put(one, name, f"{world.tag(one, name)} orders", orders(2, 1) + "SHOW ORDERS\n")
    world.put(one, "north", f"{world.tag(one, 'north')} again", orders(3, 0) + "STATUS\n")
    world.put(two, "north", f"{world.tag(two, 'north')} bad", "ORDERS\nATTACK 9\nEND\n")
    world.put(two, "south", f"{world.tag(two, 'south')} BOOM", orders(1, 1))
    world.put(two, "south", f"{world.tag(two, 'south')} after", orders(0, 3) + "SHOW ORDERS\n")
    world.put(two, "north", "[DU-2 wrong] orders", orders(1, 1))
    world.put(joining, "north", f"{world.tag(joining, 'north')} first", orders(1, 2) + "NONCE x\n")
    world.run()
    for game, name in list(world.address):  # replies to the step letters are orders
        reply_to = world.step_letter(game, name)
        world.put(
            game, name, f"Re: {world.tag(game, name)}", "ATTACK 1\n", **{"In-Reply-To": f"<{reply_to}>"}
        )
    world.put(one, "", f"{world.tag(one)} force", "FORCE\n")  # the GM closes a step amid the batch
    world.put(one, "north", f"{world.tag(one, 'north')} seal", "SEAL bid 2\nSHOW ORDERS\n")
    world.put(one, "", f"{world.tag(one)} rollback", "ROLLBACK T1.orders oops\nSTATUS\n")
    world.put(one, "south", f"{world.tag(one, 'south')} after", orders(1, 1) + "STATUS\n")
    world.run()
    world.h.tick(DAYS_3)
    for game, name in list(world.address):
        world.put(game, name, f"{world.tag(game, name)} bid", f"SEAL bid {game % 3}\nSTATUS\n")
    world.run()
    world.h.tick(DAYS_3)


def _dump(world: World) -> dict[str, list[dict[str, Any]]]:
    dump: dict[str, list[dict[str, Any]]] = {}
    with Session(world.h.bot.engine) as session:
        for model in TABLES:
            columns = [column.key for column in sa_inspect(model).columns]
            rows = session.exec(select(model).order_by(col(model.id)))
            dump[model.__name__] = [{key: _plain(key, getattr(row, key)) for key in columns} for row in rows]
    dump["sent"] = [{"raw": _plain("raw", sent.raw)} for sent in world.h.sink.sent]
    return dump


def _plain(key: str, value: Any) -> Any:
    if key == "traceback" and value:
        return value.splitlines()[-1]  # the stack above the error differs: one call or a batch
    if isinstance(value, bytes):
        return re.sub(rb"={15}\d+==", b"=boundary=", value)  # drawn by the e-mail package
    return value


def in_batches(h: Harness) -> None:
    h.bot.processor.process_pending()


def one_by_one(h: Harness) -> None:
    with Session(h.bot.engine) as session:
        pending = repo.pending_inbound_ids(session, limit=1000)
    for inbound_id in pending:
        h.bot.processor.process(inbound_id)


Dump = dict[str, list[dict[str, Any]]]


def _batched_and_alone(tmp_path: Path, same_randomness: Callable[[], None]) -> tuple[Dump, Dump]:
    """The same letters handled in batches and one transaction each, from the same draws."""
    dumps = []
    for name, handle in (("batched", in_batches), ("alone", one_by_one)):
        same_randomness()
        world = World(f"sqlite:///{tmp_path}/{name}.db", handle)
        _play(world)
        dumps.append(_dump(world))
    return dumps[0], dumps[1]


def test_a_batch_keeping_its_reads_ends_as_letters_handled_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_randomness: Callable[[], None]
) -> None:
    """Each letter under its own savepoint (the way a quick batch with a failing letter is
    handled again): the same rows as one transaction per letter, the failing one shunted."""
    _boom_after_orders(monkeypatch)
    monkeypatch.setattr(inbound, "BATCH_SECONDS", 3600.0)  # whole batches, however slow the machine
    monkeypatch.setattr(inbound, "QUICK_BATCHES", False)
    batched, alone = _batched_and_alone(tmp_path, same_randomness)
    assert [row["state"] for row in batched["Inbound"]].count("shunted") == 1
    assert any(row["state"] == "rolled-back" for row in batched["StepRow"])
    for table in batched:
        assert batched[table] == alone[table], table  # every row, and every letter byte for byte


@pytest.fixture
def two_pg_urls(pg_admin_url: str, _pg_template: str) -> Iterator[tuple[str, str]]:
    """Two fresh PostgreSQL databases at the newest revision (their ids start alike)."""
    database = contextmanager(_pg_database)
    with database(pg_admin_url, _pg_template) as one, database(pg_admin_url, _pg_template) as two:
        yield one, two


def test_a_batch_on_postgresql_keeping_the_games_it_holds_ends_as_letters_handled_one_by_one(
    two_pg_urls: tuple[str, str], monkeypatch: pytest.MonkeyPatch, same_randomness: Callable[[], None]
) -> None:
    """On PostgreSQL a batch first takes the lock of every game its letters name and keeps what
    it reads of those (``claims.try_games``): the same rows, and letters byte for byte, as one
    transaction per letter, through joins, a GM's FORCE and ROLLBACK amid the batch, a shunted
    letter and the deadlines."""
    _boom_after_orders(monkeypatch)
    monkeypatch.setattr(inbound, "BATCH_SECONDS", 3600.0)
    dumps = []
    for url, handle in zip(two_pg_urls, (in_batches, one_by_one), strict=True):
        same_randomness()
        world = World(url, handle)
        try:
            _play(world)
            dumps.append(_dump(world))
        finally:
            world.h.bot.engine.dispose()
    # A sequence gives a number to a row whose savepoint is rolled back too (the shunted letter's
    # chain link, orders and reply): the rows after it are numbered differently, so the rows
    # are compared without their own ids
    batched, alone = ({table: [_unnumbered(row) for row in rows] for table, rows in d.items()} for d in dumps)
    assert [row["state"] for row in batched["Inbound"]].count("shunted") == 1
    for table in batched:
        assert batched[table] == alone[table], table


def _unnumbered(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != "id"}


def test_a_quick_batch_ends_as_letters_handled_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_randomness: Callable[[], None]
) -> None:
    """No savepoints and one flush a batch: still every row and letter of one transaction per
    letter (a quick try that had to be done again would have drawn other secrets)."""
    monkeypatch.setattr(inbound, "BATCH_SECONDS", 3600.0)
    quick, alone = _batched_and_alone(tmp_path, same_randomness)
    for table in quick:
        assert quick[table] == alone[table], table


def test_a_quick_batch_with_a_failing_letter_is_handled_again_with_savepoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _boom_after_orders(monkeypatch)
    monkeypatch.setattr(inbound, "BATCH_SECONDS", 3600.0)
    caplog.set_level(logging.DEBUG, logger="mailbot.services.inbox.inbound")
    outcomes, lines = [], []
    for name, handle in (("quick", in_batches), ("alone", one_by_one)):
        world = World(f"sqlite:///{tmp_path}/{name}.db", handle)
        caplog.clear()
        _play(world)
        lines.append(Counter(getattr(r, "inbound", None) for r in caplog.records if hasattr(r, "outcome")))
        redone = "handled again one savepoint each" in caplog.text
        assert redone == (name == "quick")
        dump = _dump(world)
        outcomes.append(
            (
                [(row["id"], row["state"]) for row in dump["Inbound"]],
                [(row["recipient"], row["kind"], row["state"]) for row in dump["Outbound"]],
                [(row["step_id"], row["seat"], row["lines"], row["current"]) for row in dump["OrderSet"]],
            )
        )
    quick, alone = outcomes
    assert [state for _id, state in quick[0]].count("shunted") == 1
    assert quick == alone  # the rolled-back try left nothing: same letters, replies and orders
    assert lines[0] == lines[1] and set(lines[0].values()) == {1}  # one outcome line a letter, as alone


class Statements:
    """SELECTs per table and flushes, while counting; a transaction's look at a table's largest
    id, to number its new rows (``tests/services/test_row_numbers.py``), apart."""

    def __init__(self, h: Harness) -> None:
        self.engine = h.bot.engine
        self.selects: dict[str, int] = {}
        self.numbering: dict[str, int] = {}
        self.numbering_reads = 0  # statements: one reads the largest ids of several tables
        self.flushes = 0

    def __enter__(self) -> Statements:
        sa.event.listen(self.engine, "before_cursor_execute", self._statement)
        sa.event.listen(Session, "after_flush", self._flush)
        return self

    def __exit__(self, *_exc: object) -> None:
        sa.event.remove(self.engine, "before_cursor_execute", self._statement)
        sa.event.remove(Session, "after_flush", self._flush)

    def _statement(self, _conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if re.match(r"\s*SELECT \(SELECT max\(", statement):  # several tables' largest ids at once
            self.numbering_reads += 1
            for table in re.findall(r"max\((\w+)\.id\)", statement):
                self.numbering[table] = self.numbering.get(table, 0) + 1
            return
        found = re.match(r"\s*SELECT\s(.*?)\sFROM\s+(\w+)", statement, re.S)
        if found:
            numbering = re.fullmatch(r"max\(\w+\.id\).*", found.group(1)) is not None
            self.numbering_reads += numbering
            counts = self.numbering if numbering else self.selects
            counts[found.group(2)] = counts.get(found.group(2), 0) + 1

    def _flush(self, *_args: object) -> None:
        self.flushes += 1


@pytest.fixture
def harness(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
    monkeypatch.setattr(inbound, "BATCH_SECONDS", 3600.0)
    h = Harness(db_url)
    yield h
    h.bot.engine.dispose()


def _seated_games(h: Harness, count: int) -> list[tuple[int, str, str]]:
    seats = []
    for _ in range(count):
        game = h.create()
        for name in ("north", "south"):
            h.invite(game, name, f"{name}{game}@players.test")
            seats.append((game, name, f"[DU-{game} {h.seat(game, name).secret}]"))
    h.flush()
    return seats


def test_orders_letters_of_a_batch_read_each_table_once_and_flush_once_each(harness: Harness) -> None:
    seats = _seated_games(harness, 3)
    for n in range(2):
        for game, name, tag in seats:
            harness.bot.inject(
                letter(sender=f"{name}{game}@players.test", subject=f"{tag} {n}", body=orders(2, 1))
            )
    with Statements(harness) as seen:
        assert harness.bot.processor.process_pending() == 12
    with Session(harness.bot.engine) as session:
        held = session.exec(select(OrderSet).where(col(OrderSet.current))).all()
    assert (
        sorted((row.seat, row.lines) for row in held)
        == [("north", ["ATTACK 2", "DEFEND 1"])] * 3 + [("south", ["ATTACK 2", "DEFEND 1"])] * 3
    )
    if harness.bot.engine.dialect.name == "sqlite":  # one transaction keeps what it read
        assert {
            table: seen.selects.get(table, 0) for table in ("game", "seat", "step", "order_set", "chain")
        } == {
            "game": 1,
            "seat": 1,
            "step": 1,
            "order_set": 1,
            "chain": 1,
        }
        assert seen.flushes == 1  # a quick batch: every letter's rows written together at the commit
        # and numbered here: one look at the largest id of each table with several new rows
        assert seen.numbering == {"chain": 1, "order_set": 1, "outbound": 1}
        assert seen.numbering_reads == 1
    else:  # the batch locks the games its letters name, then keeps what it reads of them
        assert {table: seen.selects.get(table, 0) for table in ("game", "seat", "step", "order_set")} == {
            "game": 1,
            "seat": 1,
            "step": 1,
            "order_set": 1,
        }
        # a game's first chain link is read and written at once (the unique key guards the head)
        assert seen.selects.get("chain", 0) == 3
        assert seen.flushes == 12 + 3
        # and the letters the batch claimed are locked for it: read together once, not once each
        assert seen.selects["inbound"] < 12


def _running_step(h: Harness) -> tuple[int, int]:
    game = _seated_games(h, 1)[0][0]
    with Session(h.bot.engine) as session:
        step = queries.open_step(session, game)
        assert step is not None
        return game, int(step.id or 0)


def _orders(step_id: int, seat: str, h: Harness) -> OrderSet:
    return OrderSet(step_id=step_id, seat=seat, lines=["ATTACK 1"], received_at=h.clock.now)


def _failing_letter(session: Session, step_id: int, h: Harness) -> None:
    with session.begin_nested():
        session.add(_orders(step_id, "south", h))
        assert set(queries.current_orders(session, step_id)) == {"south"}
        raise RuntimeError("the letter failed")


def test_kept_orders_follow_rows_added_or_replaced_by_anyone(tmp_path: Path) -> None:
    h = Harness(f"sqlite:///{tmp_path}/kept.db")
    _game, step_id = _running_step(h)
    with Session(h.bot.engine) as session, session.begin():
        begin_writing(session)
        assert queries.current_orders(session, step_id) == {}
        north = _orders(step_id, "north", h)
        session.add(north)  # not through MailGame: the kept orders are read again
        assert queries.current_orders(session, step_id) == {"north": north}
        north.current = False
        assert queries.current_orders(session, step_id) == {}
        with pytest.raises(RuntimeError):
            _failing_letter(session, step_id, h)
        assert queries.current_orders(session, step_id) == {}  # its savepoint's rows are gone


def test_a_kept_open_step_closed_in_the_transaction_is_read_again(tmp_path: Path) -> None:
    h = Harness(f"sqlite:///{tmp_path}/steps.db")
    game, step_id = _running_step(h)
    with Session(h.bot.engine) as session, session.begin():
        begin_writing(session)
        step = queries.open_step(session, game)
        assert step is not None and step.id == step_id
        step.state = StepState.RESOLVED
        assert queries.open_step(session, game) is None
        following = h.bot.games.open_next(session, session.get_one(Game, game))
        assert following is not None and queries.open_step(session, game) is following
