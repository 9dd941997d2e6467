# SPDX-License-Identifier: GPL-3.0-or-later
"""Games by mail on SQLite and PostgreSQL: seats, secrets, orders, deadlines, GM tools.

Time is injected (the harness clock), never waited for.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from mailbot.core.chain import verify_chain
from mailbot.core.deadlines import local_time
from mailbot.core.sealed import check_receipt
from mailbot.scheduler.deadlines import DeadlineScheduler
from mailbot.services.base import chainlog
from mailbot.services.play.reports import Reports
from mailbot.services.post.letters import Draft
from mailbot.store.game_tables import Game, GameStatus, OrderSet, SeatStatus, StepState
from tests.services.game_helpers import Harness, started_duel, text, to
from tests.services.helpers import GM, letter

NORTH, SOUTH = "north@players.test", "south@players.test"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _started(h: Harness) -> tuple[int, str, str]:
    return started_duel(h, NORTH, SOUTH)


def test_join_by_mail_starts_the_game_when_every_seat_is_taken(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    game = h.game(game_id)
    assert game.status is GameStatus.RUNNING
    assert h.seat(game_id, "south").status is SeatStatus.ACTIVE
    (step,) = [s for s in h.steps(game_id) if s.state is StepState.OPEN]
    assert step.key == "T1.orders" and step.owing == ["north", "south"]
    assert step.deadline_at == h.clock.now + timedelta(hours=48) or step.deadline_at > h.clock.now
    assert north_tag != south_tag


def test_wrong_join_code_reveals_nothing(h: Harness) -> None:
    game_id = h.create()
    (reply,) = h.mail("stranger@players.test", "hi", f"JOIN {game_id} south WRONGCODE\n")
    body = text(reply)
    assert "no open invitation matches" in body
    assert h.seat(game_id, "south").status is SeatStatus.INVITED
    (reply2,) = h.mail("stranger@players.test", "hi", "JOIN 999 south WRONGCODE\n")
    # The same answer for an existing and a missing game: nothing is revealed.
    assert text(reply2) == body.replace(f"JOIN {game_id} ", "JOIN 999 ")


def test_orders_are_confirmed_with_problems_then_replaced_with_a_diff(h: Harness) -> None:
    _game_id, north_tag, _ = _started(h)
    (first,) = to(h.mail(NORTH, f"Re: {north_tag} orders", "ORDERS\nATTACK 2\nCHARGE!\nEND\n"), NORTH)
    body = text(first)
    assert "ATTACK 2" in body
    assert 'Line 3: "CHARGE!"' in body
    (second,) = to(
        h.mail(NORTH, f"Re: {north_tag} orders", "ORDERS T1.orders\nATTACK 1\nDEFEND 2\nEND\n"), NORTH
    )
    body2 = text(second)
    assert "These replace your earlier orders" in body2
    assert "- ATTACK 2" in body2 and "+ ATTACK 1" in body2
    with Session(h.bot.engine) as session:
        rows = session.exec(select(OrderSet).where(OrderSet.seat == "north")).all()
    assert [r.current for r in rows] == [False, True]


def test_refusals_change_nothing(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    secret = north_tag.split()[1].rstrip("]")
    # Wrong secret from the registered address: refused to that address, no game content.
    (wrong,) = h.mail(NORTH, f"[DU-{game_id} nope99] orders", "ORDERS\nATTACK 3\nEND\n")
    assert "refused" in text(wrong) and "the secret was wrong" in text(wrong)
    # The right secret from another address: the stranger learns nothing, the owner is told.
    letters = h.mail("mallory@evil.test", f"[DU-{game_id} {secret}] orders", "ORDERS\nATTACK 3\nEND\n")
    (to_mallory,) = to(letters, "mallory@evil.test")
    (to_owner,) = to(letters, NORTH)
    assert "not registered for any game" in text(to_mallory) and "ATTACK" not in text(to_mallory)
    assert "mallory@evil.test" in text(to_owner)
    # Stale step tag.
    (stale,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS T7.orders\nATTACK 1\nEND\n"), NORTH)
    assert "the open step is T1.orders" in text(stale)
    with Session(h.bot.engine) as session:
        assert session.exec(select(OrderSet)).all() == []


def test_spoofed_sender_failing_dkim_is_refused_when_the_game_requires_it(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        from mailbot.store.game_tables import Game

        session.get_one(Game, game_id).require_dkim = True
    results = "mx.example.test; dkim=fail header.d=players.test; spf=softfail"
    letters = h.mail(
        NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nEND\n", **{"Authentication-Results": results}
    )
    assert "DKIM" in text(to(letters, NORTH)[0])
    forged = "mx.forger.test; dkim=pass header.d=players.test"  # not our receiving server: not trusted
    letters = h.mail(
        NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nEND\n", **{"Authentication-Results": forged}
    )
    assert "DKIM" in text(to(letters, NORTH)[0])
    good = "mx.example.test; dkim=pass header.d=players.test"
    letters = h.mail(
        NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nEND\n", **{"Authentication-Results": good}
    )
    assert "Orders accepted" in text(to(letters, NORTH)[0])


def test_stranger_gets_help_and_no_game_information(h: Harness) -> None:
    _started(h)
    (reply,) = h.mail("nobody@players.test", "STATUS", "")
    body = text(reply)
    assert "not registered for any game" in body
    assert "T1" not in body and "north" not in body


def test_deadline_applies_defaults_names_the_late_seat_and_tells_the_gm(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    assert h.tick(3600) == []  # nothing due an hour later
    letters = h.tick(48 * 3600)
    gm = to(letters, GM)
    assert any("late list" in m["Subject"] and "south" in text(m) for m in gm)
    assert {m["To"] for m in letters} >= {NORTH, SOUTH}
    with Session(h.bot.engine) as session:
        defaulted = session.exec(select(OrderSet).where(OrderSet.defaulted)).all()
    assert [row.seat for row in defaulted] == ["south"]
    south_report = next(m for m in to(letters, SOUTH) if "resolved" in m["Subject"])
    north_report = next(m for m in to(letters, NORTH) if "resolved" in m["Subject"])
    assert "You sent no orders: these defaults were applied" in text(south_report)
    assert "ATTACK 1" in text(south_report).split("these defaults were applied")[1]
    # The duel hides its orders and every seat can read the defaults: north is not told that south
    # sent nothing, which would tell him south's split before the sealed bid (GM trial).
    assert "No orders came from" not in text(north_report) and "defaults were applied" not in text(
        north_report
    )
    assert h.seat(game_id, "south").missed_in_row == 1


def test_only_a_game_that_hides_nothing_names_the_other_seats_that_sent_nothing() -> None:
    defaults = {"south": ["ATTACK 1", "DEFEND 2"]}
    for others, said in ((True, ["No orders came from south; defaults were applied."]), (False, [])):
        letter = Draft("north@players.test", "report")
        Reports._defaults_section(letter, "north", defaults, others=others)
        assert [line for section in letter.sections for line in section["lines"]] == said
        mine = Draft("south@players.test", "report")
        Reports._defaults_section(mine, "south", defaults, others=others)
        assert mine.sections == [
            {
                "title": "You sent no orders: these defaults were applied",
                "lines": ["  ATTACK 1", "  DEFEND 2"],
            }
        ]


def test_reminders_go_only_to_seats_that_still_owe(h: Harness) -> None:
    _, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    letters = h.tick(37 * 3600)  # 12 h before the 48 h deadline
    assert [m["To"] for m in letters] == [SOUTH]
    assert "Reminder" in letters[0]["Subject"]
    assert any(part.get_filename() == "deadline.ics" for part in letters[0].iter_attachments())
    assert h.tick(60) == []  # once only


def test_early_processing_waits_for_the_delay_and_respects_wait(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\nWAIT\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    assert h.tick(600) == []  # everyone is in, but north asked to WAIT
    h.mail(NORTH, f"{north_tag} go", "NOWAIT\n")
    letters = h.tick(1)
    assert {m["To"] for m in letters} == {NORTH, SOUTH}
    assert [s.key for s in h.steps(game_id) if s.state is StepState.OPEN] == ["T1.bid"]


def test_early_processing_gives_time_for_a_last_correction(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    assert h.tick(120) == []  # the 5-minute correction delay is not over
    assert h.tick(200) != []
    assert [s.key for s in h.steps(game_id) if s.state is StepState.OPEN] == ["T1.bid"]


def test_early_processing_after_ten_seconds_when_so_set(h: Harness) -> None:
    game_id = h.create(deadline="4m", early=timedelta(seconds=10))
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", SOUTH)
    h.flush()
    north, south = (f"[DU-{game_id} {h.seat(game_id, name).secret}]" for name in ("north", "south"))
    h.mail(NORTH, f"{north} orders", "ORDERS\nATTACK 2\nEND\n")
    h.mail(SOUTH, f"{south} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    assert h.tick(5) == []
    assert {m["To"] for m in h.tick(5)} == {NORTH, SOUTH}
    assert [s.key for s in h.steps(game_id) if s.state is StepState.OPEN] == ["T1.bid"]


def test_status_says_when_early_processing_is_due(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)

    def status(sender: str, subject_tag: str) -> list[str]:
        (reply,) = h.mail(sender, f"{subject_tag} status", "STATUS\n")
        return [line for line in text(reply).splitlines() if line.startswith("Early processing")]

    def gm_status() -> list[str]:
        with Session(h.bot.engine) as session:
            lines = h.bot.mailgame.status_lines(session, session.get_one(Game, game_id), None)
        return [line for line in lines if line.startswith("Early processing")]

    assert status(NORTH, north_tag) == ["Early processing: 5 minutes after every order is in"]
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\nWAIT\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    # South learns nothing of north's WAIT; the game master is told who holds the step back.
    assert status(SOUTH, south_tag) == ["Early processing: 5 minutes after every order is in"]
    assert gm_status() == ["Early processing: held back, north asked to WAIT"]
    h.mail(NORTH, f"{north_tag} go", "NOWAIT\n")
    due = h.steps(game_id)[-1].early_at
    assert due is not None
    expected = f"Early processing: due {local_time(due, 'Europe/Berlin')} (every order is in)"
    assert status(SOUTH, south_tag) == gm_status() == [expected]


def test_status_shows_deadline_in_the_players_zone(h: Harness) -> None:
    _, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} tz", "TIMEZONE America/New_York\n")
    (reply,) = h.mail(NORTH, f"{north_tag} status", "STATUS\n")
    body = text(reply)
    assert "Open step: T1.orders" in body
    assert "Still to send: north, south" in body
    assert "EST" in body


def test_pause_resume_and_interlock_when_most_seats_are_silent(h: Harness) -> None:
    game_id, _, _ = _started(h)
    letters = h.tick(49 * 3600)
    assert h.game(game_id).status is GameStatus.PAUSED
    assert any("2 of 2 seats sent nothing" in text(m) for m in to(letters, GM))
    gm_secret = h.game(game_id).gm_secret
    (answer,) = to(h.mail(GM, f"[DU-{game_id} {gm_secret}] resume", "RESUME checked the mailbox\n"), GM)
    assert "GM: RESUME" in text(answer)
    assert h.game(game_id).status is GameStatus.RUNNING


def test_orders_that_reached_the_server_in_time_count_after_a_restart_past_the_deadline(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.bot.reader.read_at = None  # the bot is down: letters reach the server but are not read
    h.clock.advance(3600)
    h.bot.inject(letter(sender=NORTH, subject=f"{north_tag} orders", body="ORDERS\nATTACK 3\nEND\n"))
    h.clock.advance(49 * 3600)  # past the deadline (48 h) while still down
    h.bot.inject(letter(sender=SOUTH, subject=f"{south_tag} orders", body="ORDERS\nATTACK 3\nEND\n"))
    assert h.bot.tick_once() == [f"game {game_id}: idle"]  # held: the mailbox is not read yet
    assert h.game(game_id).status is GameStatus.RUNNING
    h.bot.reader.read_at = h.clock.now  # restarted and read the mailbox
    letters = h.tick()
    assert h.game(game_id).status is GameStatus.RUNNING
    with Session(h.bot.engine) as session:
        held = {r.seat: (r.lines, r.defaulted) for r in session.exec(select(OrderSet))}
    assert held["north"] == (["ATTACK 3", "DEFEND 0"], False)  # in time by the server's clock
    assert held["south"] == (["ATTACK 1", "DEFEND 2"], True)  # late: the defaults were played
    (refusal,) = [m for m in to(letters, SOUTH) if "after the deadline" in text(m)]
    assert "reached the mail server after the deadline" in text(refusal)


class _Rebuilds(DeadlineScheduler):
    """A scheduler that counts the times it was asked to look at the deadlines again."""

    def __init__(self, h: Harness) -> None:
        runner = h.bot.deadlines
        super().__init__(tick=runner.tick_games, wake_times=runner.wake_times, clock=lambda: h.clock.now)
        self.asked = 0

    def rebuild(self) -> None:
        self.asked += 1


def test_the_first_read_of_the_mailbox_asks_again_for_the_tick_that_waited_for_it(h: Harness) -> None:
    # A restart past a deadline: the tick at start is held until the mailbox is read, and the
    # letters of that read may be handled before it ends; the read itself must ask for the tick.
    game_id, _, _ = _started(h)
    h.bot.reader.read_at = None
    h.clock.advance(49 * 3600)
    assert h.bot.tick_once() == [f"game {game_id}: idle"]
    h.bot.deadlines.scheduler = scheduler = _Rebuilds(h)
    h.bot.reader.was_read(fetched=0)
    assert (scheduler.asked, h.bot.reader.read_at) == (1, h.clock.now)
    h.bot.reader.was_read(fetched=0)  # later reads ask for nothing: handling rounds do
    assert scheduler.asked == 1
    assert h.bot.tick_once() != [f"game {game_id}: idle"]


def test_a_read_that_ends_while_a_tick_runs_counts_from_the_next_tick(h: Harness) -> None:
    # The tick took its watch before the read ended, so it did not handle that read's letters:
    # its games are held as unread, not judged as read with every seat silent (a pause).
    game_id, north_tag, south_tag = _started(h)
    h.bot.reader.read_at = None
    h.clock.advance(3600)
    for sender, tag in ((NORTH, north_tag), (SOUTH, south_tag)):
        h.bot.inject(letter(sender=sender, subject=f"{tag} orders", body="ORDERS\nATTACK 3\nEND\n"))
    h.clock.advance(48 * 3600)
    watch = h.bot.reader.health()
    h.bot.reader.read_at = h.clock.now  # the read ends after the tick began
    assert list(h.bot.ticks(watch)) == [f"game {game_id}: idle"]
    assert h.game(game_id).status is GameStatus.RUNNING
    assert h.bot.tick_once() == [f"game {game_id}: processed (deadline)"]
    with Session(h.bot.engine) as session:
        assert not any(row.defaulted for row in session.exec(select(OrderSet)))


def test_rollback_then_reprocess_gives_the_same_result(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(49 * 3600)
    first_state = h.game(game_id).state
    gm_secret = h.game(game_id).gm_secret
    h.mail(GM, f"[DU-{game_id} {gm_secret}] rollback", "ROLLBACK T1.orders wrong dice table\n")
    assert h.steps(game_id)[-1].key == "T1.orders" and h.steps(game_id)[-1].attempt == 2
    h.mail(GM, f"[DU-{game_id} {gm_secret}] force", "FORCE same again\n")
    assert h.game(game_id).state == first_state


def test_gm_preview_goes_to_the_gm_only(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    gm_secret = h.game(game_id).gm_secret
    letters = h.mail(GM, f"[DU-{game_id} {gm_secret}] preview", "PREVIEW\n")
    assert [m["To"] for m in letters] == [GM]
    assert "Preview of" in text(letters[0])
    assert [s.state for s in h.steps(game_id) if s.key == "T1.orders"] == [StepState.OPEN]


def test_gm_commands_from_a_player_are_refused(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    (reply,) = to(h.mail(NORTH, f"{north_tag} pause", "PAUSE\n"), NORTH)
    assert "only the game master" in text(reply)
    assert h.game(game_id).status is GameStatus.RUNNING


def test_sealed_bid_receipts_and_opening(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(49 * 3600)
    step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
    assert step.kind == "sealed"
    letters = h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\n")
    (receipt_letter,) = to(letters, NORTH)
    (notice,) = to(letters, SOUTH)
    receipt = text(receipt_letter).split("Receipt: ")[1].split()[0]
    assert "2" not in text(notice).replace(f"DU-{game_id}", "")  # south learns only that a value arrived
    letters = h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
    opening = h.tick(13 * 3600)
    north_report = next(m for m in to(opening, NORTH) if "resolved" in m["Subject"])
    line = next(line for line in text(north_report).splitlines() if line.startswith("north bid"))
    salt = line.split("salt ")[1].split(",")[0]
    assert check_receipt("2", salt, receipt)


def test_every_event_is_chained_and_verifies(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.tick(49 * 3600)
    with Session(h.bot.engine) as session:
        entries = chainlog.entries(session, game_id)
    kinds = [e.kind for e in entries]
    assert (
        kinds[:1] == ["game-created"] and "orders" in kinds and "step-resolved" in kinds and "report" in kinds
    )
    assert verify_chain(entries) is None


def test_vacation_applies_defaults_without_counting_late(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    (bad,) = to(h.mail(SOUTH, f"{south_tag} away", "VACATION 2026-11-22 2027-01-30\n"), SOUTH)
    assert "at most 14 days" in text(bad)
    (ok,) = to(h.mail(SOUTH, f"{south_tag} away", "VACATION 2026-11-21 2026-11-30\n"), SOUTH)
    assert "your default orders apply" in text(ok)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    assert h.tick(37 * 3600) == []  # no reminder for a player on vacation
    letters = h.tick(12 * 3600)
    assert not any("late list" in m["Subject"] for m in to(letters, GM))
    assert h.seat(game_id, "south").missed_in_row == 0
    with Session(h.bot.engine) as session:
        assert [r.seat for r in session.exec(select(OrderSet).where(OrderSet.defaulted))] == ["south"]


def test_a_deadline_tick_twice_at_the_same_moment_processes_once(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.clock.advance(49 * 3600)
    assert h.bot.tick_once() == [f"game {game_id}: processed (deadline)"]
    assert h.bot.tick_once() == [f"game {game_id}: idle"]
    assert [s.key for s in h.steps(game_id) if s.state is StepState.RESOLVED] == ["setup", "T1.orders"]


def test_a_substitute_gets_only_the_seats_own_past_reports(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.tick(49 * 3600)
    gm_secret = h.game(game_id).gm_secret
    letters = h.mail(
        GM, f"[DU-{game_id} {gm_secret}] replace", "REPLACE south carol@players.test moved away\n"
    )
    carol = to(letters, "carol@players.test")
    history = [m for m in carol if "] History: " in m["Subject"]]
    assert len(history) == 2, [m["Subject"] for m in history]  # south's opening report and its T1 report
    assert all("report for south" in text(m) and "report for north" not in text(m) for m in history)
    assert h.seat(game_id, "south").address == "carol@players.test"
    opening, t1 = (text(m) for m in history)  # T1's orders are closed now, its bids are open
    assert "== Now open: " in opening and "You owe orders for this step." not in opening
    assert "This step is closed now: nothing is owed for it." in opening and "Send: ORDERS" not in opening
    assert "You owe orders for this step." in t1 and "Send: SEAL" in t1
    (told,) = to(letters, SOUTH)  # the replaced player is told, and learns nothing of carol
    assert told["Subject"] == f"[DU-{game_id}] You no longer play south in {h.game(game_id).title}"
    assert "moved away" in text(told) and "carol" not in text(told).lower()


def test_a_seat_given_again_to_its_own_player_sends_no_farewell(h: Harness) -> None:
    game_id, _, _ = _started(h)
    gm_secret = h.game(game_id).gm_secret
    letters = h.mail(
        GM, f"[DU-{game_id} {gm_secret}] replace", "REPLACE south SOUTH@players.test new secret\n"
    )
    assert not [m for m in to(letters, SOUTH) if "no longer play" in m["Subject"]]
    assert [m for m in to(letters, SOUTH) if "Welcome" in m["Subject"]]


def test_a_letter_for_a_finished_game_is_answered_and_changes_nothing(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        from mailbot.store.game_tables import Game

        game = session.get_one(Game, game_id)
        game.status, game.result = GameStatus.FINISHED, "north wins"
    before = len(h.steps(game_id))
    (reply,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n"), NORTH)
    assert "the game is finished" in text(reply)
    assert len(h.steps(game_id)) == before


def test_grace_delays_processing_past_the_announced_deadline(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        from mailbot.store.game_tables import Game

        session.get_one(Game, game_id).grace_seconds = 3600
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.clock.advance(48 * 3600 + 60)  # past the deadline, within the grace hour
    assert h.bot.tick_once() == [f"game {game_id}: reminded"]  # the 12-hour reminder, not processing
    h.clock.advance(3600)
    assert h.bot.tick_once() == [f"game {game_id}: processed (deadline)"]


def test_help_from_a_seat_explains_its_games_orders_and_strangers_learn_nothing(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    (answer,) = to(h.mail(NORTH, f"{north_tag} help", "HELP\n"), NORTH)
    body = text(answer)
    assert "== Commands ==" in body and "== Orders for north ==" in body
    assert f"Test duel (DU-{game_id}): Turn 1 of 3: orders" in body
    assert "ATTACK n" in body and "ORDERS\nATTACK 2\nDEFEND 1\nEND" in body.replace("\r\n", "\n")
    for sender in (NORTH, "stranger@elsewhere.test"):  # no tag: the command list and how to ask
        (plain,) = to(h.mail(sender, "help", "HELP\n"), sender)
        assert "== Your game's orders ==" in text(plain) and "ATTACK" not in text(plain)
        assert "refused" not in text(plain) and "Test duel" not in text(plain)
    wrong = f"[DU-{game_id} nope99]"  # a wrong secret is refused as for any other command
    (refused,) = to(h.mail(NORTH, f"{wrong} help", "HELP\n"), NORTH)
    assert "refused" in text(refused) and "ATTACK n" not in text(refused)


def test_the_gm_gets_a_start_letter_and_copies_of_press(h: Harness) -> None:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    code = h.seat(game_id, "south").invite_code
    letters = h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n") + h.flush()
    (start,) = [m for m in to(letters, GM) if "has started" in m["Subject"]]
    assert start["Subject"] == f"[DU-{game_id} GM] Test duel has started"
    body = text(start)
    assert f"north: {NORTH}" in body and f"south: {SOUTH}" in body and "Open now: Turn 1 of 3" in body
    assert h.game(game_id).gm_secret not in body
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    letters = h.mail(NORTH, f"{north_tag} press", "PRESS SOUTH\nMeet me at dawn.\nEND\n")
    (copy,) = to(letters, GM)
    assert copy["Subject"] == f"[DU-{game_id} GM] Press from north to south" and "Meet me at dawn." in text(
        copy
    )
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).anonymous_press = True
    (copy,) = to(h.mail(NORTH, f"{north_tag} press", "PRESS SOUTH ANON\nBoo.\nEND\n"), GM)
    assert "Press from north (sent anonymously) to south" in copy["Subject"]  # the GM referees


def test_anonymous_press_stays_anonymous_to_a_gm_who_also_plays(h: Harness) -> None:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", GM)  # the GM's own address plays south
    h.flush()
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).anonymous_press = True
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    letters = h.mail(NORTH, f"{north_tag} press", "PRESS SOUTH ANON\nBoo.\nEND\n")
    (relayed,) = to(letters, GM)  # the press itself, no second copy naming north
    assert "Press from an anonymous player" in relayed["Subject"] and "north" not in text(relayed).lower()


def test_list_by_mail_names_the_games_open_to_join_and_nothing_private(h: Harness) -> None:
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    h.flush()
    (answer,) = to(h.mail("stranger@elsewhere.test", "list", "LIST\n"), "stranger@elsewhere.test")
    body = text(answer)
    assert (
        f"{game_id} (DU-{game_id}) Test duel: duel, scenario standard;" in body
        and "free seats: south" in body
    )
    assert "JOIN <game> <seat> <invite code>" in body
    assert NORTH not in body and h.seat(game_id, "south").invite_code not in body and GM not in body
    code = h.seat(game_id, "south").invite_code
    h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n")
    (answer,) = to(h.mail("stranger@elsewhere.test", "list", "LIST\n"), "stranger@elsewhere.test")
    joinable = text(answer).partition("== Games open to observers ==")[0]
    assert "None at the moment." in joinable and "Test duel" not in joinable
    # A running game is no longer open to join, but it is open to observers (OBSERVE).
    assert f"{game_id} (DU-{game_id}) Test duel: duel, running" in text(answer)


def test_the_gms_copy_of_anonymous_press_stays_anonymous_when_the_gm_plays_another_seat(h: Harness) -> None:
    from mailbot.services.base.tags import tag
    from mailbot.services.play.games import GameSetup

    setup = GameSetup(
        plugin="atlantic-storm", scenario="3p", title="Storm", deadline="48h", timezone="UTC", gm_address=GM
    )
    with Session(h.bot.engine) as session, session.begin():
        game = h.bot.games.create(session, setup)
        game_id = int(game.id or 0)
        game.anonymous_press = True
    for seat, address in (("P1", NORTH), ("P2", SOUTH), ("P3", GM)):  # the GM's address plays P3
        h.invite(game_id, seat, address)
    h.flush()
    p1_tag = f"[{tag(h.game(game_id))} {h.seat(game_id, 'P1').secret}]"
    letters = h.mail(NORTH, f"{p1_tag} press", "PRESS P2 ANON\nBoo.\nEND\n")
    (relayed,) = to(letters, SOUTH)
    (copy,) = to(letters, GM)
    assert copy["Subject"].endswith("Press from an anonymous player to P2") and "Boo." in text(copy)
    assert "P1" not in text(copy) and "P1" not in copy["Subject"] and "anonymous player" in relayed["Subject"]


def test_a_command_in_the_subject_is_done_beside_game_and_secret_lines(h: Harness) -> None:
    """Player trial: "Subject: STATUS" above "GAME 1 / SECRET ..." was answered "Hello," alone."""
    game_id, _, _ = _started(h)
    secret = h.seat(game_id, "north").secret
    (answer,) = to(h.mail(NORTH, "STATUS", f"GAME {game_id}\nSECRET {secret}\n"), NORTH)
    said = " ".join(text(answer).split())
    assert "Still to send" in said, said
