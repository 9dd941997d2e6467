# SPDX-License-Identifier: GPL-3.0-or-later
"""The outbox over several SMTP links: in order per recipient, nothing lost, nothing doubled."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.connect import smtp_config
from mailbot.errors import ConfigError, CrashInjected, SmtpTransportError
from mailbot.services.post.outbox import Outbox, RetryPolicy
from mailbot.settings import PROJECT_ROOT, Settings, SmtpSettings, load_settings
from mailbot.store import db
from mailbot.store.models import Outbound, OutboundState

START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


class SlowSink:
    """Takes a little while per letter; counts letters in flight, per recipient too."""

    def __init__(self, *, down_from: int | None = None) -> None:
        self.down_from = down_from  # calls from this one on fail as a broken link
        self.calls = 0
        self.in_flight = 0
        self.most = 0
        self.busy: Counter[str] = Counter()
        self.overlapped: list[str] = []
        self.sent: list[tuple[str, bytes]] = []

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        self.calls += 1
        call = self.calls
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        self.busy[recipient] += 1
        if self.busy[recipient] > 1:
            self.overlapped.append(recipient)
        try:
            await asyncio.sleep(0.005)
            if self.down_from is not None and call >= self.down_from:
                raise SmtpTransportError("SMTPServerDisconnected: gone")
            self.sent.append((recipient, raw))
        finally:
            self.in_flight -= 1
            self.busy[recipient] -= 1

    async def close(self) -> None:
        return None


@pytest.fixture
def sqlite(tmp_path: Path) -> Iterator[Engine]:
    engine = db.make_engine(f"sqlite:///{tmp_path}/outbox.db")
    db.upgrade(engine)
    yield engine
    engine.dispose()


def _queue(engine: Engine, recipients: list[str], first: int = 0) -> None:
    with Session(engine) as session, session.begin():
        for n, recipient in enumerate(recipients, start=first):
            session.add(
                Outbound(
                    message_id=f"m{n}@bot.test",
                    sender="bot@example.test",
                    recipient=recipient,
                    raw=f"Subject: {n}\r\n\r\nletter {n}\r\n".encode(),
                    next_attempt_at=START,
                    created_at=START,
                )
            )


def _rows(engine: Engine) -> list[Outbound]:
    with Session(engine) as session:
        return list(session.exec(select(Outbound).order_by(col(Outbound.id))))


def _outbox(engine: Engine, sink: SlowSink, connections: int) -> Outbox:
    return Outbox(
        engine=engine,
        sink=sink,
        clock=lambda: START,
        retry=RetryPolicy(base=10, maximum=100, max_attempts=4),
        connections=connections,
        probe=RetryPolicy(base=10, maximum=100),
    )


PLAYERS = [f"p{n}@players.test" for n in range(4)]


async def test_several_links_at_once_and_each_recipient_in_order(sqlite: Engine) -> None:
    recipients = [PLAYERS[n % 4] for n in range(20)] + [PLAYERS[0]] * 5  # one gets many in a row
    _queue(sqlite, recipients)
    sink = SlowSink()

    report = await _outbox(sqlite, sink, connections=3).send_due()

    assert report.sent == 25 and not report.paused
    assert sink.most == 3  # three links busy at once
    assert sink.overlapped == []  # never two letters of one recipient with SMTP at once
    order: dict[str, list[int]] = defaultdict(list)
    for recipient, raw in sink.sent:
        order[recipient].append(int(raw.split(b"letter ")[1]))
    for recipient, numbers in order.items():
        assert numbers == sorted(numbers), recipient  # in the order they were written
    assert Counter(r for r, _ in sink.sent) == Counter(recipients)  # each exactly once
    assert {(row.state, row.attempts) for row in _rows(sqlite)} == {(OutboundState.SENT, 1)}
    assert all(row.sent_at is not None for row in _rows(sqlite))


async def test_a_broken_link_mid_batch_puts_every_untried_letter_back(sqlite: Engine) -> None:
    _queue(sqlite, [f"q{n}@players.test" for n in range(20)])
    sink = SlowSink(down_from=6)
    outbox = _outbox(sqlite, sink, connections=3)

    report = await outbox.send_due()

    rows = _rows(sqlite)
    assert report.paused
    assert report.sent == len(sink.sent) == 5
    assert Counter(row.state for row in rows) == {OutboundState.SENT: 5, OutboundState.PENDING: 15}
    assert {row.attempts for row in rows if row.state is OutboundState.PENDING} == {0}  # none spent
    assert outbox.next_due() == START + timedelta(seconds=10)  # one outage, one backoff step

    sink.down_from = None
    outbox.clock = lambda: START + timedelta(seconds=10)
    again = await outbox.send_due()
    assert again.sent == 15
    assert Counter(r for r, _ in sink.sent) == Counter(f"q{n}@players.test" for n in range(20))


async def test_a_dead_link_is_tried_with_one_letter_not_one_per_link(sqlite: Engine) -> None:
    _queue(sqlite, [f"r{n}@players.test" for n in range(10)])
    sink = SlowSink(down_from=1)

    report = await _outbox(sqlite, sink, connections=4).send_due()

    assert report.paused and sink.calls == 1
    assert {(row.state, row.attempts) for row in _rows(sqlite)} == {(OutboundState.PENDING, 0)}


async def test_a_crash_after_smtp_loses_nothing_and_repeats_only_the_unmarked(sqlite: Engine) -> None:
    _queue(sqlite, [f"s{n}@players.test" for n in range(12)])
    sink = SlowSink()
    outbox = _outbox(sqlite, sink, connections=1)
    accepted = []

    def crash_at_the_fourth(name: str) -> None:
        accepted.append(name)
        if len(accepted) == 4:
            raise CrashInjected(name)

    outbox.checkpoint = crash_at_the_fourth
    with pytest.raises(CrashInjected):
        await outbox.send_due()
    states = Counter(row.state for row in _rows(sqlite))
    assert states[OutboundState.SENDING] >= 1  # the fourth: accepted, not marked sent
    assert sum(states.values()) == 12  # no row lost

    restart = _outbox(sqlite, sink, connections=3)
    restart.recover()
    await restart.send_due()

    assert {row.state for row in _rows(sqlite)} == {OutboundState.SENT}
    counts = Counter(raw for _, raw in sink.sent)
    assert set(counts.values()) <= {1, 2} and len(counts) == 12  # everything arrived
    assert sum(counts.values()) - 12 == states[OutboundState.SENDING]  # again: only the unmarked


def test_the_number_of_links_is_a_setting_with_a_safe_default(tmp_path: Path) -> None:
    assert Settings().smtp.connections == 3
    example = load_settings(PROJECT_ROOT / "config" / "mailbot.example.toml")
    assert example.smtp.connections == 3
    bad = tmp_path / "bad.toml"
    bad.write_text("[smtp]\nconnections = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"smtp\.connections"):
        load_settings(bad)
    app_config = smtp_config(Settings(smtp=SmtpSettings(connections=5)))
    assert app_config.connections == 5


async def test_a_failing_link_stops_the_others_before_they_take_more(sqlite: Engine) -> None:
    _queue(sqlite, [f"t{n}@players.test" for n in range(20)])
    sink = SlowSink()
    outbox = _outbox(sqlite, sink, connections=3)
    accepted = []

    def store_trouble(name: str) -> None:
        accepted.append(name)
        if len(accepted) == 3:
            raise RuntimeError("the database went away")

    outbox.checkpoint = store_trouble
    await outbox.send_due()  # logged, never raised

    states = Counter(row.state for row in _rows(sqlite))
    # Everything handed to SMTP is marked sent or left "sending"; nothing handed over went
    # back to "pending", where it would be sent twice.
    assert len(sink.sent) == states[OutboundState.SENT] + states[OutboundState.SENDING]
    assert states[OutboundState.SENDING] == 1
    outbox.checkpoint = lambda _name: None
    await outbox.send_due()
    # The next run settles the row SMTP took first (the worker lives: no sweep would), then
    # sends the rest: each exactly once, none left "sending".
    assert Counter(Counter(raw for _, raw in sink.sent).values()) == {1: 20}  # each exactly once
    assert Counter(row.state for row in _rows(sqlite)) == {OutboundState.SENT: 20}


class FirstAlone(SlowSink):
    """Notes how many letters were with SMTP at once when each batch's first letter went out."""

    def __init__(self) -> None:
        super().__init__()
        self.company_of_first: list[int] = []
        self.batch_started = True

    async def send(self, sender: str, recipient: str, raw: bytes) -> None:
        watch = self.batch_started
        self.batch_started = False
        task = asyncio.create_task(super().send(sender, recipient, raw))
        await asyncio.sleep(0.002)  # the other links have had their turn to start
        if watch:
            self.company_of_first.append(self.in_flight)
        await task


async def test_a_batch_goes_out_on_every_link_at_once_while_the_link_is_known_to_work(sqlite: Engine) -> None:
    """A deadline tick wakes the sender after each game: a probe before each small batch
    would keep the other links idle. Once a letter went through, the next batch needs none;
    after the link broke, the first letter goes alone again."""
    sink, now = FirstAlone(), [START]
    retry = RetryPolicy(base=10, maximum=100, max_attempts=4)
    outbox = Outbox(engine=sqlite, sink=sink, clock=lambda: now[0], retry=retry, connections=3)
    _queue(sqlite, PLAYERS[:3])
    assert (await outbox.send_due()).sent == 3
    sink.batch_started = True
    _queue(sqlite, PLAYERS[:3], first=3)
    assert (await outbox.send_due()).sent == 3
    assert sink.company_of_first == [1, 3]  # the first batch probed; the second did not need to

    sink.down_from = sink.calls + 1  # the link breaks under a batch sent on every link
    _queue(sqlite, PLAYERS[:3], first=6)
    sink.batch_started = True
    assert (await outbox.send_due()).paused
    assert sink.calls == 9  # one try a link, and no letter spends an attempt on it:
    assert [(row.state, row.attempts) for row in _rows(sqlite)[6:]] == [(OutboundState.PENDING, 0)] * 3
    now[0] = START + timedelta(seconds=60)  # after the backoff
    tries, sink.batch_started = sink.calls, True
    assert (await outbox.send_due()).paused
    assert sink.calls == tries + 1  # the link is not known to work now: one letter probes it
