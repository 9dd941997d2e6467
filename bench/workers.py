#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Several workers on one PostgreSQL store: the end-to-end burst with 1 and with 2 workers.

For each run (1 worker, then 2) in a fresh PostgreSQL database and a fresh mailbox on the
real Dovecot rig: duel games are set up with both seats taken (not timed), ``--workers``
real ``mailbot run`` processes are started on the same configuration and, once they run,
``--mails`` ORDERS letters from the seated players arrive over LMTP (four connections, as
fast as Dovecot takes them, so letters keep arriving while the workers handle them). Timed
from the first letter delivered to every confirmation queued, and to every confirmation
accepted by SMTP. Then the store is checked for double processing: a letter answered more
than once, orders stored twice for one letter, letters shunted or never handled.

Timings on a shared machine move by a third between runs; so the workers also count what
they ask the store (``mailbot/store/counts.py``, on in the workers the bench starts): the
``asked of the store`` lines give statements and round trips a letter in the burst and
statements a second in an idle window before it, then the counts that grew with the second
worker and ``statements per letter, 2 workers / 1: <r>``. ``--warm N`` sends N letters
through first, untimed (a worker runs for days); ``--counts FILE`` keeps every count.
``--repeat N`` makes N such runs and ends with the medians of their ratios (the whole machine's
work, the moderator's own CPU, the speed-up), each run against its own 1-worker reference.

The raw reference is the one-worker run of the same burst, measured in the same run.
Target (issue 12): two workers at least 1.6x one, double processing 0.
Last lines: ``speed-up with 2 workers: <x>`` and ``double processing: <n>``.
Run: ``.venv/bin/python bench/workers.py [--mails N]`` (PostgreSQL as ``make test`` sets it up,
or ``MAILBOT_TEST_PG_URL``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu import CORES, CpuWindow
from intake import deliver, orders_letter, seat_players, settings

from mailbot.app import Bot
from mailbot.settings import StoreSettings
from mailbot.store import counts
from mailbot.store.game_tables import OrderSet
from mailbot.store.models import Inbound, InboundState, Outbound, OutboundState
from mailbot.store.presence import workers_running
from mailbot.testing.mailrig import MailRig

#: the idle window before a burst, in which the workers' statements a second are counted (longer
#: than the slowest of their polls, ``bot.outbox_poll_seconds``)
IDLE_SECONDS = 6.0

PG_ADMIN_URL = os.environ.get(
    "MAILBOT_TEST_PG_URL", "postgresql+psycopg://mailbot:mailbot@127.0.0.1:5432/postgres"
)


@contextmanager
def fresh_database() -> Iterator[str]:
    name = f"mailbot_bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def write_config(rig: MailRig, mailbox: str, url: str, path: Path) -> None:
    lines = [
        "[imap]",
        f'host = "{rig.host}"',
        f"port = {rig.imaps_port}",
        'security = "tls"',
        f'cafile = "{rig.cafile}"',
        f'user = "{mailbox}"',
        "poll_interval = 30.0",
        "[smtp]",
        f'host = "{rig.host}"',
        f"port = {rig.smtp_port}",
        'security = "starttls"',
        f'cafile = "{rig.cafile}"',
        f'user = "{mailbox}"',
        "[store]",
        f"url = {json.dumps(url)}",
        "[bot]",
        f'address = "{mailbox}"',
        'name = "mailbot bench"',
        "handling_process = true",  # each worker with its letter process, as measured in the README
    ]
    path.write_text("\n".join(lines) + "\n")


def start_worker(rig: MailRig, config: Path, log: Path, counted: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["MAILBOT_IMAP__PASSWORD"] = env["MAILBOT_SMTP__PASSWORD"] = rig.player_password
    env[counts.ENV] = str(counted)  # each of its processes writes what it asked the store there
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "mailbot", "run", "--config", str(config)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@dataclass
class Outcome:
    workers: int
    letters: int
    queued_s: float
    sent_s: float
    double: int
    shunted: int
    unhandled: int
    arrived_s: float  # when the last letter was in the mailbox
    busy_s: float  # core-seconds the whole machine was busy, from the first letter to the last sent
    parts: dict[str, float]  # core-seconds by part of the system (moderator, database, mail servers)
    idle: Counter[str]  # what the workers asked the store in IDLE_SECONDS before the burst
    asked: Counter[str]  # what they asked it during the burst (mailbot.store.counts)


def progress(engine: sa.Engine) -> tuple[int, int, int]:
    """(letters handled, confirmations queued, confirmations accepted by SMTP)."""
    with Session(engine) as session:
        handled = session.exec(
            select(sa.func.count()).select_from(Inbound).where(Inbound.state != InboundState.NEW)
        ).one()
        replies = session.exec(
            select(Outbound.state, sa.func.count())
            .where(Outbound.inbound_id.is_not(None))  # type: ignore[union-attr]
            .group_by(Outbound.state)
        ).all()
    counts = {str(getattr(state, "value", state)): n for state, n in replies}
    return int(handled), sum(counts.values()), counts.get(OutboundState.SENT.value, 0)


def double_processing(engine: sa.Engine) -> tuple[int, int, int]:
    """(letters answered or stored more than once, shunted, never handled)."""
    with Session(engine) as session:
        replies = Counter(r.inbound_id for r in session.exec(select(Outbound)) if r.inbound_id)
        stored = Counter(o.inbound_id for o in session.exec(select(OrderSet)) if o.inbound_id)
        states = Counter(r.state for r in session.exec(select(Inbound)))
    twice = {i for i, n in replies.items() if n > 1} | {i for i, n in stored.items() if n > 1}
    return len(twice), states[InboundState.SHUNTED], states[InboundState.NEW]


async def arrive(rig: MailRig, mailbox: str, letters: list[tuple[str, bytes]], started: float) -> float:
    """Deliver the letters; returns when the last one was in the mailbox (seconds from ``started``)."""
    await deliver(rig, mailbox, letters)
    return time.perf_counter() - started


async def burst(
    rig: MailRig, workers: int, mails: int, games: int, players: int, *, warm: int = 0
) -> Outcome:
    with fresh_database() as url, tempfile.TemporaryDirectory() as tmp:
        mailbox = rig.new_address()
        setup = settings(rig, mailbox, Path(tmp))
        setup.store = StoreSettings(url=url)
        bot = Bot(setup)
        bot.upgrade()
        seats = seat_players(bot, games, [rig.new_address() for _ in range(players)])
        bot.engine.dispose()
        letters = [
            (seats[n % len(seats)].address, orders_letter(seats[n % len(seats)], mailbox, n))
            for n in range(warm + mails)
        ]
        config = Path(tmp) / "mailbot.toml"
        write_config(rig, mailbox, url, config)
        engine = sa.create_engine(url)
        counted = Path(tmp) / "counts"
        procs = [start_worker(rig, config, Path(tmp) / f"worker{n}.log", counted) for n in range(workers)]
        try:
            await started(engine, workers)
            if warm:
                await warm_up(rig, mailbox, letters[:warm], engine)
            idle, before = await idle_counts(counted)
            cpu = CpuWindow(pids=[proc.pid for proc in procs]).start()
            started_at = time.perf_counter()
            arriving = asyncio.create_task(arrive(rig, mailbox, letters[warm:], started_at))
            queued_at = None
            while True:
                handled, queued, sent = await asyncio.to_thread(progress, engine)
                now = time.perf_counter() - started_at
                if queued_at is None and queued >= warm + mails:
                    queued_at = now
                if sent >= warm + mails:
                    sent_at = now
                    break
                if now > 600:
                    raise SystemExit(f"gave up: {handled} handled, {queued} queued, {sent} sent")
                await asyncio.sleep(0.05)
            print(cpu.report(f"the burst with {workers} worker(s)"))
            asked = await settled_counts(counted) - before
            parts = cpu.by_kind()
            arrived_s = await arriving
            twice, shunted, unhandled = await asyncio.to_thread(double_processing, engine)
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
            engine.dispose()
        queued_s, busy = queued_at or sent_at, cpu.busy_seconds
        return Outcome(
            workers, mails, queued_s, sent_at, twice, shunted, unhandled, arrived_s, busy, parts, idle, asked
        )


def show(outcome: Outcome) -> None:
    print(
        f"{outcome.workers} worker(s): {outcome.letters} letters, all confirmations queued in "
        f"{outcome.queued_s:.2f} s ({outcome.letters / outcome.queued_s:,.0f} letters/s), accepted by SMTP "
        f"in {outcome.sent_s:.2f} s ({outcome.letters / outcome.sent_s:,.0f} letters/s); "
        f"answered or stored twice {outcome.double}, shunted {outcome.shunted}, "
        f"not handled {outcome.unhandled}; the last letter arrived at {outcome.arrived_s:.2f} s"
    )


@dataclass(frozen=True)
class Pair:
    """One run's figures against its own 1-worker reference."""

    work: float  # the whole machine's work per letter, 2 workers / 1
    moderator: float  # the moderator's own CPU per letter (workers and letter processes), 2 / 1
    speedup: float
    double: int


async def main(mails: int, games: int, players: int, warm: int, counts_file: Path | None = None) -> Pair:
    with MailRig() as rig:
        one = await burst(rig, 1, mails, games, players, warm=warm)
        show(one)
        two = await burst(rig, 2, mails, games, players, warm=warm)
        show(two)
    print(f"reference (1 worker, same run): {mails / one.sent_s:,.0f} letters/s to SMTP")
    print(f"letters shunted or never handled with 2 workers: {two.shunted + two.unhandled}")
    # Letters arrive over time: no number of workers ends the burst before the last one came.
    print(f"the most this burst can show: {one.sent_s / two.arrived_s:.2f} (1 worker's time / arrival)")
    # Whatever the code does, the 2-worker run cannot end before the work the machine did in it
    # (the workers, PostgreSQL, the mail servers, the letters' delivery) fits on its cores.
    for run in (one, two):
        print(
            f"work on the machine with {run.workers} worker(s): {run.busy_s:.1f} core-seconds, "
            f"{run.busy_s / run.letters * 1000:.1f} ms a letter"
        )
    print(
        f"the most 2 workers could show with the work they did on {CORES} cores: "
        f"{one.sent_s * CORES / two.busy_s:.2f} (1 worker's time x cores / that work)"
    )
    for line in scaling(one, two):
        print(line)
    for line in asked_lines(one, two):
        print(line)
    if counts_file is not None:  # every count, for a closer look
        runs = {
            f"{run.workers} worker(s), {what}": dict(sorted(getattr(run, what).items()))
            for run in (one, two)
            for what in ("idle", "asked")
        }
        counts_file.write_text(json.dumps(runs, indent=1) + "\n")
    pair = Pair(
        two.busy_s / one.busy_s,
        (two.parts["moderator"] / two.letters) / (one.parts["moderator"] / one.letters),
        one.sent_s / two.sent_s,
        two.double,
    )
    print(f"work per letter, 2 workers / 1: {pair.work:.2f}")
    print(f"speed-up with 2 workers: {pair.speedup:.2f}")
    print(f"double processing: {pair.double}")
    return pair


async def repeated(runs: int, *args: Any) -> None:
    """``--repeat N``: N runs, each against its own 1-worker reference, then their medians (a
    shared machine moves one run's ratio by a third)."""
    pairs = []
    for n in range(runs):
        print(f"--- run {n + 1} of {runs}")
        pairs.append(await main(*args))
    if runs == 1:
        return
    for label, values in (
        ("work per letter, 2 workers / 1", [p.work for p in pairs]),
        ("the moderator's own CPU per letter, 2 workers / 1", [p.moderator for p in pairs]),
        ("speed-up with 2 workers", [p.speedup for p in pairs]),
    ):
        each = ", ".join(f"{v:.2f}" for v in values)
        print(f"{label}, median of {runs} runs: {statistics.median(values):.2f} ({each})")
    print(f"speed-up with 2 workers: {statistics.median(p.speedup for p in pairs):.2f}")
    print(f"double processing: {sum(p.double for p in pairs)}")


async def started(engine: sa.Engine, workers: int) -> None:
    deadline = time.monotonic() + 60
    while workers_running(engine) != workers:
        if time.monotonic() > deadline:
            raise SystemExit("the workers did not start; see their logs")
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)  # the reader is idling on the mailbox


async def warm_up(rig: MailRig, mailbox: str, letters: list[tuple[str, bytes]], engine: sa.Engine) -> None:
    """A first, untimed burst: a worker runs for days, and what its processes do once (import
    on first use, compile templates and statements) is not a letter's cost."""
    await deliver(rig, mailbox, letters)
    deadline = time.monotonic() + 600
    while (await asyncio.to_thread(progress, engine))[2] < len(letters):
        if time.monotonic() > deadline:
            raise SystemExit("the warm-up letters were not all sent")
        await asyncio.sleep(0.1)


async def idle_counts(counted: Path) -> tuple[Counter[str], Counter[str]]:
    """What the workers asked the store in ``IDLE_SECONDS`` with no letter coming, and their
    counts so far."""
    before_idle = await settled_counts(counted)
    await asyncio.sleep(IDLE_SECONDS)
    before = await settled_counts(counted)
    return before - before_idle, before


async def settled_counts(folder: Path) -> Counter[str]:
    """The workers' counts once each process has written what it has (they write every
    ``counts.WRITE_SECONDS``)."""
    await asyncio.sleep(2 * counts.WRITE_SECONDS)
    return counts.gather(folder)


def round_trips(asked: Counter[str]) -> int:
    """Round trips to PostgreSQL: each statement, each BEGIN, COMMIT and ROLLBACK (psycopg sends
    them apart), each connection taken from the pool (its ping)."""
    trips = ("tx begin", "tx commit", "tx rollback", "pool checkout")
    return sum(n for what, n in asked.items() if what.startswith("sql ") or what in trips)


def statements(asked: Counter[str]) -> int:
    return sum(n for what, n in asked.items() if what.startswith("sql "))


def asked_lines(one: Outcome, two: Outcome) -> list[str]:
    """What the workers asked the store, per letter in the burst and per second idle, with 1
    and 2 workers, and the counts that grew most with the second worker (timings on a shared
    machine move by a third between runs; these do not)."""
    lines = []
    for run in (one, two):
        per = run.letters
        lines.append(
            f"asked of the store with {run.workers} worker(s): {statements(run.asked) / per:.1f} statements "
            f"and {round_trips(run.asked) / per:.1f} round trips a letter in the burst; idle "
            f"{statements(run.idle) / IDLE_SECONDS:.1f} statements a second"
        )
    events = sorted(set(one.asked) | set(two.asked))
    grew = sorted(events, key=lambda what: one.asked[what] - two.asked[what])
    for what in grew[:12]:
        if two.asked[what] > one.asked[what]:
            lines.append(
                f"  {what}: {one.asked[what] / one.letters:.2f} a letter with 1 worker, "
                f"{two.asked[what] / two.letters:.2f} with 2"
            )
    for what in (
        "letters left waiting",
        "letters game busy",
        "letters rounds with none handled",
        "outbox claims empty",
    ):
        lines.append(f"  {what}: {one.asked[what]} with 1 worker, {two.asked[what]} with 2")
    lines.append(
        f"statements per letter, 2 workers / 1: "
        f"{statements(two.asked) / two.letters / max(statements(one.asked) / one.letters, 1e-9):.2f}"
    )
    return lines


def per_letter(run: Outcome) -> dict[str, float]:
    """Milliseconds of CPU a letter costs each part of the system in ``run``."""
    return {part: seconds / run.letters * 1000 for part, seconds in run.parts.items()}


def scaling(one: Outcome, two: Outcome, counts: tuple[int, ...] = (1, 2, 4, 8, 16)) -> list[str]:
    """The scaling model (README "Several workers"): N workers on N machines, PostgreSQL and the
    mail servers on one machine each, every machine with this one's cores, each part's work per
    letter as measured (one worker's run for N = 1, the two workers' run beyond: it holds what
    sharing the store costs). Letters/s a part sustains = its cores x 1000 / its ms a letter; N
    workers sustain the least of N times the moderator's, PostgreSQL's and the mail servers'."""
    alone, shared = per_letter(one), per_letter(two)
    lines = [
        "work per letter (ms of CPU): "
        + "; ".join(f"{part} {alone[part]:.1f} with 1 worker, {shared[part]:.1f} with 2" for part in alone)
    ]
    first_db_bound = None
    for n in counts:
        ms = alone if n == 1 else shared
        limits = {
            "the workers": n * CORES * 1000 / max(ms["moderator"], 1e-9),
            "PostgreSQL": CORES * 1000 / max(ms["database"], 1e-9),
            "the mail servers": CORES * 1000 / max(ms["mail servers"], 1e-9),
        }
        bound = min(limits, key=lambda part: limits[part])
        if bound == "PostgreSQL" and first_db_bound is None:
            first_db_bound = n
        rate = f"{limits[bound]:,.0f} letters/s, limited by {bound}"
        lines.append(f"model: {n} worker(s) on {n} machine(s): {rate}")
    database = shared["moderator"] / max(shared["database"], 1e-9)
    mail = shared["moderator"] / max(shared["mail servers"], 1e-9)
    lines.append(
        f"model: the workers outgrow one PostgreSQL at {database:.1f} workers and one mail server at "
        f"{mail:.1f} (a worker's ms a letter / theirs); mail servers can be several, PostgreSQL is one"
        + (f"; of the counts above, PostgreSQL limits from {first_db_bound}" if first_db_bound else "")
    )
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mails", type=int, default=2000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--warm", type=int, default=0, help="letters sent through before the timed burst")
    parser.add_argument("--counts", type=Path, help="write every count the workers noted to this JSON file")
    parser.add_argument("--repeat", type=int, default=1, help="runs, then the medians of their ratios")
    args = parser.parse_args()
    asyncio.run(repeated(max(args.repeat, 1), args.mails, args.games, args.players, args.warm, args.counts))
