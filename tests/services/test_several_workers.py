# SPDX-License-Identifier: GPL-3.0-or-later
"""Two workers on one PostgreSQL store: letters, games and outbox rows are each handled once.

Two bots in one process stand for two ``mailbot run`` on two machines: they share only the
store. (The same with real processes, a real mailbox and a kill -9 is in
``tests/e2e/test_two_workers.py``.)
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from sqlmodel import Session, col, select

from mailbot.app import DEAD_WORKER_SECONDS
from mailbot.errors import GameBusy
from mailbot.services.base.claims import claim_letters, claim_next, lock_game, try_games_on_load
from mailbot.services.inbox import inbound
from mailbot.store.game_tables import Game, OrderSet, Seat
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from tests.services.game_helpers import Harness
from tests.services.helpers import letter

pytestmark = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)

PLAYERS = [f"p{n}@players.test" for n in range(8)]


@pytest.fixture
def two(db_url: str) -> Iterator[tuple[Harness, Harness]]:
    first, second = Harness(db_url), Harness(db_url)
    second.clock = first.clock
    yield first, second
    first.bot.engine.dispose()
    second.bot.engine.dispose()


def _games(h: Harness, count: int) -> list[tuple[int, str, str]]:
    """Duels with both seats taken; (game, seat address, seat secret) per seat."""
    seats = []
    players = iter(PLAYERS)
    for _ in range(count):
        game_id = h.create()
        for seat in ("north", "south"):
            address = next(players)
            h.invite(game_id, seat, address)
            seats.append((game_id, address, h.seat(game_id, seat).secret))
    h.flush()
    return seats


def _store_orders(h: Harness, seats: list[tuple[int, str, str]], rounds: int) -> None:
    for n in range(rounds):
        for game_id, address, secret in seats:
            attack = 1 + (n % 3)
            body = f"ORDERS\nATTACK {attack}\nDEFEND {3 - attack}\nEND\n"
            h.clock.advance(1)
            h.bot.inject(letter(sender=address, subject=f"[DU-{game_id} {secret}] orders {n}", body=body))


def _side_by_side(workers: list[Harness]) -> None:
    """Each worker handles letters in its own thread until none is left for anyone."""
    errors: list[BaseException] = []

    def work(h: Harness) -> None:
        try:
            while h.bot.processor.process_pending() or h.bot.processor.waiting:
                pass
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(h,)) for h in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors


def test_two_workers_handle_every_letter_once_and_in_each_players_order(
    two: tuple[Harness, Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbound, "BATCH_LETTERS", 3)  # small batches: the workers take turns often
    first, second = two
    seats = _games(first, 4)
    rounds = 6
    _store_orders(first, seats, rounds)

    _side_by_side([first, second])

    with Session(first.bot.engine) as session:
        letters = session.exec(select(Inbound)).all()
        assert len(letters) == len(seats) * rounds
        assert {row.state for row in letters} == {InboundState.PROCESSED}
        replies = Counter(row.inbound_id for row in session.exec(select(Outbound)) if row.inbound_id)
        assert sorted(replies.values()) == [1] * len(letters)  # one confirmation each, none twice
        stored = Counter(row.inbound_id for row in session.exec(select(OrderSet)))
        assert set(stored.values()) == {1}  # no letter's orders stored twice
        # Each player's last letter is his current orders: letters were read in his order.
        for game_id, address, _secret in seats:
            seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.address == address)).one()
            current = session.exec(
                select(OrderSet)
                .where(OrderSet.seat == seat.name, col(OrderSet.current))
                .join(Inbound, col(Inbound.id) == OrderSet.inbound_id)
                .where(Inbound.sender == address)
            ).all()
            assert len(current) == 1
            last = max(
                (row for row in letters if row.sender == address), key=lambda row: (row.received_at, row.id)
            )
            assert current[0].inbound_id == last.id


def test_a_letter_waits_while_another_worker_has_its_game_or_its_senders_earlier_letter(
    two: tuple[Harness, Harness],
) -> None:
    first, second = two
    seats = _games(first, 1)
    _store_orders(first, seats[:1], 2)  # two letters of one player
    _store_orders(first, seats[1:], 1)  # and one of his opponent
    with Session(first.bot.engine) as session:
        ids = list(session.exec(select(Inbound.id).order_by(col(Inbound.id))).all())
    own, later, opponent = (int(i or 0) for i in ids)

    with Session(first.bot.engine) as held, held.begin():
        assert [i for i, _ in claim_letters(held, [own])] == [own]
        with Session(second.bot.engine) as other, other.begin():
            # The first letter is claimed; the player's next one waits for it; his opponent's may go.
            assert [i for i, _ in claim_letters(other, [own, later, opponent])] == [opponent]
        lock_game(held, seats[0][0])
        with Session(second.bot.engine) as other, other.begin():
            try_games_on_load(other)
            with pytest.raises(GameBusy):
                other.get_one(Game, seats[0][0])
    # Once the first worker's transaction ended, everything is free again.
    with Session(second.bot.engine) as other, other.begin():
        assert [i for i, _ in claim_letters(other, [own, later, opponent])] == [own, later, opponent]
        try_games_on_load(other)
        assert other.get_one(Game, seats[0][0]).id == seats[0][0]


def test_outbox_rows_are_claimed_once_kept_in_order_and_a_dead_workers_rows_come_back(
    two: tuple[Harness, Harness],
) -> None:
    first, second = two
    seats = _games(first, 2)
    _store_orders(first, seats, 2)
    first.bot.processor.process_pending()
    a, b = first.bot.outbox, second.bot.outbox
    claimed_a = a._claim()
    claimed_b = b._claim()
    assert claimed_a and not {r.id for r in claimed_a} & {r.id for r in claimed_b}
    # Nothing B took goes to anybody before an earlier letter A holds for him.
    held_by_a = {r.recipient: r.id for r in claimed_a}
    assert all(r.id < held_by_a.get(r.recipient, r.id + 1) for r in claimed_b)

    # A dies (its key is free: nobody holds its presence lock); B gives its rows back.
    a.owner = 987654321
    with Session(first.bot.engine) as session, session.begin():
        for row in session.exec(select(Outbound).where(Outbound.state == OutboundState.SENDING)):
            if row.id in {r.id for r in claimed_a}:
                row.lease_owner = a.owner
    second.bot.presence.start()
    try:
        # Dead once is not dead yet (a restarted server drops every worker's presence until it
        # reconnects); dead for DEAD_WORKER_SECONDS, its rows come back.
        assert b.recover() == 0
        b._dead_since = {key: seen - DEAD_WORKER_SECONDS for key, seen in b._dead_since.items()}
        assert b.recover() == len(claimed_a)  # B's own rows stay: it is alive
        with Session(first.bot.engine) as session:
            sending = session.exec(select(Outbound).where(Outbound.state == OutboundState.SENDING)).all()
        assert {row.id for row in sending} == {r.id for r in claimed_b}
        assert {row.lease_owner for row in sending} <= {second.bot.presence.worker_key}
    finally:
        second.bot.presence.stop()


def test_each_worker_claims_the_next_letters_no_other_holds_in_one_statement(
    two: tuple[Harness, Harness],
) -> None:
    first, second = two
    seats = _games(first, 2)
    _store_orders(first, seats, 2)  # each of the four players: two letters
    with Session(first.bot.engine) as session:
        letters = session.exec(select(Inbound).order_by(col(Inbound.received_at), col(Inbound.id))).all()
    ids = [int(row.id or 0) for row in letters]

    with Session(first.bot.engine) as held, held.begin():
        taken, mine = claim_next(held, 3, skip=())
        assert taken == ids[:3] and [i for i, _ in mine] == ids[:3]
        with Session(second.bot.engine) as other, other.begin():
            # The next letters, none of the first worker's; the fifth (second round) letter is
            # from the first letter's sender: it is claimed but waits for that one.
            taken, turn = claim_next(other, 3, skip=())
            assert taken == ids[3:6]
            assert [i for i, _ in turn] == [ids[3]]
            # What a worker took or left waiting in a round is not claimed again in it.
            rest, _ = claim_next(other, 10, skip=set(ids[3:7]))
            assert rest == ids[7:]


def test_a_batch_locks_its_games_first_and_leaves_a_busy_ones_letters_waiting_untried(
    two: tuple[Harness, Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch takes the locks of the games its letters name in one statement and keeps what it
    reads of them; a letter to a game another worker holds waits without being tried (no
    savepoint rolled back, nothing the batch keeps dropped), and goes once the game is free."""
    first, second = two
    seats = _games(first, 2)
    _store_orders(first, seats, 1)
    busy_game = seats[0][0]
    tried: list[int] = []
    real = inbound.InboundProcessor._process_in

    def process_in(self: inbound.InboundProcessor, session: Session, inbound_id: int) -> bool:
        tried.append(inbound_id)
        return real(self, session, inbound_id)

    monkeypatch.setattr(inbound.InboundProcessor, "_process_in", process_in)
    with Session(first.bot.engine) as held, held.begin():
        lock_game(held, busy_game)  # another worker's tick, say
        assert second.bot.processor.process_pending() == 2  # the free game's two letters
    with Session(first.bot.engine) as session:
        rows = session.exec(select(Inbound).order_by(col(Inbound.id))).all()
        waiting = [row.id for row in rows if row.state is InboundState.NEW]
        assert len(waiting) == 2 and all(
            f"[DU-{busy_game} " in row.subject for row in rows if row.id in waiting
        )
    assert not set(waiting) & set(tried)  # waited without a try under a savepoint
    tried.clear()
    assert second.bot.processor.process_pending() == 2  # the game is free: they go
    assert sorted(tried) == sorted(int(i or 0) for i in waiting)
