# SPDX-License-Identifier: GPL-3.0-or-later
"""What the game master does to seats and steps holds (issue 35's outside trial as a GM): an
ejected player no longer plays, a seat goes to one player only, a finished game stays finished,
a paused game stays paused through a rollback, and an address must be one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session, select

from mailbot.errors import ConfigError
from mailbot.services.base import queries
from mailbot.services.play.games import AFTER_ABSOLUTE, GameSetup
from mailbot.services.play.history import VOID_REPORT, closed_steps_marked
from mailbot.store.game_tables import Game, GameStatus, SeatStatus, StepState
from mailbot.store.models import Inbound, InboundState
from tests.services.game_helpers import Harness, started_duel, text, to
from tests.services.helpers import GM

NORTH, SOUTH = "north@players.test", "south@players.test"


@pytest.fixture
def h(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """On SQLite only: what is checked is the GM's rules, not the store's."""
    harness = Harness(f"sqlite:///{tmp_path_factory.mktemp('gm')}/gm.db")
    yield harness
    harness.bot.engine.dispose()


def _started(h: Harness) -> tuple[int, str, str]:
    return started_duel(h, NORTH, SOUTH)


def _gm(h: Harness, game_id: int, line: str) -> list[str]:
    """The GM's letter of one command; the texts of the answers it got."""
    letters = h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] gm", f"{line}\n")
    return [text(m) for m in to(letters, GM)]


def test_an_ejected_player_is_told_and_his_letters_no_longer_play_the_seat(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    letters = h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] eject", "EJECT north keeps spamming\n")
    (told,) = [m for m in to(letters, NORTH) if "no longer play" in m["Subject"]]
    assert "removed you from north" in text(told) and "keeps spamming" in text(told)
    (reply,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n"), NORTH)
    assert "Orders accepted" not in text(reply)
    assert "secret was wrong" in text(reply) or "not registered" in text(reply), text(reply)
    with Session(h.bot.engine) as session:
        step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
        assert "north" not in queries.current_orders(session, int(step.id or 0))
    answers = _gm(h, game_id, "EJECT north again")
    assert any("north has no player to eject (the seat is ejected)" in a for a in answers), answers


def test_an_ejected_seat_plays_defaults_and_is_not_listed_late(h: Harness) -> None:
    game_id, _, south_tag = _started(h)
    h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] eject", "EJECT north\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    letters = h.tick(49 * 3600)
    assert not any("late list" in m["Subject"] for m in to(letters, GM))
    assert h.seat(game_id, "north").status is SeatStatus.EJECTED


def test_a_seat_goes_to_one_player_and_a_finished_game_keeps_its_seats(h: Harness) -> None:
    game_id, _, _ = _started(h)
    answers = _gm(h, game_id, f"REPLACE south {NORTH}")
    assert any(f"{NORTH} plays north in this game: one player, one seat" in a for a in answers), answers
    assert h.seat(game_id, "south").address == SOUTH
    answers = _gm(h, game_id, "REPLACE south not-an-address")
    assert any("'not-an-address' is not an e-mail address" in a for a in answers), answers
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).status = GameStatus.FINISHED
    for line in ("REPLACE south carol@players.test", "EJECT south"):
        assert any("the game is over" in a for a in _gm(h, game_id, line))
    assert h.seat(game_id, "south").address == SOUTH
    assert h.seat(game_id, "south").status is SeatStatus.ACTIVE


def test_a_seat_given_again_to_its_player_is_not_announced_as_a_new_player(h: Harness) -> None:
    game_id, _, _ = _started(h)
    letters = h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] again", f"REPLACE south {SOUTH}\n")
    news = [text(m) for m in to(letters, NORTH) if "Game master: replace" in text(m)]
    assert news and all("The player of south was given a new secret." in t for t in news)
    assert not any("has a new player" in t for t in news)


def _first_orders_resolved(h: Harness) -> int:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.tick(49 * 3600)
    return game_id


def test_a_rollback_of_a_paused_game_leaves_it_paused(h: Harness) -> None:
    game_id = _first_orders_resolved(h)
    _gm(h, game_id, "PAUSE lunch")
    # GM trial: a second PAUSE was answered "-> the game is paused"; EJECT east did not list the seats.
    assert any("the game is paused already: nothing changed" in a for a in _gm(h, game_id, "PAUSE again"))
    assert any("no seat 'east' (seats: north, south)" in a for a in _gm(h, game_id, "EJECT east"))
    letters = h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] rb", "ROLLBACK T1.orders typo\n")
    assert h.game(game_id).status is GameStatus.PAUSED
    assert any("The game stays paused" in text(m) for m in to(letters, NORTH))
    # GM trial: the letters of a paused game said "Send: ORDERS ..." and the orders were refused.
    for letter in to(letters, NORTH) + to(_extended(h, game_id), NORTH):
        said = " ".join(text(letter).split())
        assert "Send: ORDERS" not in said and "you may replace them." not in said, said
        assert "no orders are taken until the game master resumes it" in said, said
    assert any("resumed" in a for a in _gm(h, game_id, "RESUME"))


def _extended(h: Harness, game_id: int) -> list[EmailMessage]:
    return h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] ext", "EXTEND 24h\n")


def test_a_finished_game_is_not_rolled_back(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.tick(49 * 3600)
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).status = GameStatus.FINISHED
    answers = _gm(h, game_id, "ROLLBACK T1.orders")
    assert any("the game is over: its log is closed" in a for a in answers), answers
    assert h.game(game_id).status is GameStatus.FINISHED


def test_a_game_master_address_must_be_an_address(h: Harness) -> None:
    setup = GameSetup(
        plugin="duel", scenario="standard", title="t", deadline="48h", timezone="UTC", gm_address="zzz"
    )
    with Session(h.bot.engine) as session, pytest.raises(ConfigError, match="'zzz' is not an e-mail address"):
        h.bot.games.create(session, setup)


def test_the_gm_is_told_when_a_game_ends_by_its_rules(h: Harness) -> None:
    game_id = h.create(turns=1)
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", SOUTH)
    h.flush()
    for address in (NORTH, SOUTH):  # one turn: orders, then the sealed bids
        h.mail(address, f"[DU-{game_id} {h.seat(game_id, address[:5]).secret}] o", "ORDERS\nATTACK 2\nEND\n")
    told = [text(m) for m in to(h.tick(49 * 3600), GM) if "Game over" in m["Subject"]]
    for address in (NORTH, SOUTH):
        h.mail(address, f"[DU-{game_id} {h.seat(game_id, address[:5]).secret}] b", "SEAL bid 1\n")
    told += [text(m) for m in to(h.tick(13 * 3600), GM) if "Game over" in m["Subject"]]
    assert h.game(game_id).status is GameStatus.FINISHED
    (over,) = told
    assert h.game(game_id).result in over


def test_a_deadline_already_past_is_refused_when_the_game_is_created(h: Harness) -> None:
    setup = GameSetup(
        plugin="duel",
        scenario="standard",
        title="t",
        deadline="2020-01-01 20:00",
        timezone="UTC",
        gm_address=GM,
    )
    with (
        Session(h.bot.engine) as session,
        pytest.raises(ConfigError, match="'2020-01-01 20:00' is already past"),
    ):
        h.bot.games.create(session, setup)


def test_a_substitute_is_told_which_past_reports_were_rolled_back(h: Harness) -> None:
    game_id = _first_orders_resolved(h)
    _gm(h, game_id, "ROLLBACK T1.orders wrong table")
    letters = h.mail(
        GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] r", "REPLACE south carol@players.test\n"
    )
    history = [m for m in to(letters, "carol@players.test") if "] History: " in m["Subject"]]
    void = [m for m in history if m["Subject"].endswith("(void)")]
    assert len(history) == 2 and len(void) == 1, [m["Subject"] for m in history]
    assert "Turn 1 of 3: orders" in void[0]["Subject"] and VOID_REPORT in " ".join(text(void[0]).split())
    assert VOID_REPORT not in text(history[0])


def test_a_closed_steps_send_line_goes_with_the_lines_it_wrapped_onto() -> None:
    report = "\n".join(
        [
            "== Now open: Turn 1 bids ==",
            "You owe orders for this step.",
            "Send: SEAL bid <0-3>: the value is sealed,",
            "  others see only a receipt.",
            "",
            "Thank you.",
        ]
    )
    lines = closed_steps_marked(report, "Turn 2 orders")
    assert "  others see only a receipt." not in lines and not any(x.startswith("Send:") for x in lines)
    assert lines[-2:] == ["", "Thank you."]
    assert closed_steps_marked(report, "Turn 1 bids") == report.splitlines()  # the open step's stays


@pytest.mark.parametrize(
    ("duration", "said"),
    [("400d", "'400d': longer than 365 days"), ("0h", "'0h': a deadline duration must be more than zero")],
)
def test_an_extension_that_cannot_be_given_says_why(h: Harness, duration: str, said: str) -> None:
    game_id, _, _ = _started(h)
    before = next(s for s in h.steps(game_id) if s.state is StepState.OPEN).deadline_at
    assert any(said in a for a in _gm(h, game_id, f"EXTEND T1.orders {duration}"))
    assert next(s for s in h.steps(game_id) if s.state is StepState.OPEN).deadline_at == before


def test_a_gm_letter_with_a_wrong_secret_is_told_so_and_changes_nothing(h: Harness) -> None:
    game_id, _, _ = _started(h)
    letters = h.mail(GM, f"[DU-{game_id} wrongsecret] pause", "PAUSE\n")
    answers = [text(m) for m in to(letters, GM)]
    assert any("the GM secret was wrong" in a for a in answers), answers
    assert not any("not registered for any game" in a for a in answers)
    assert h.game(game_id).status is GameStatus.RUNNING


def test_a_player_given_a_seat_that_had_none_is_told_where_the_game_stands(h: Harness) -> None:
    game_id, _, south_tag = _started(h)
    _gm(h, game_id, "EJECT north")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.tick(49 * 3600)  # T1 played without north's player: his seat got no report of it
    open_step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
    letters = h.mail(
        GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] r", "REPLACE north carol@players.test\n"
    )
    carol = to(letters, "carol@players.test")
    (now,) = [m for m in carol if "where the game stands" in m["Subject"]]
    assert f"== Now open: {open_step.title}" in text(now)
    # That step went on without the seat; it owes again from the next step on (the trial, item 1).
    assert "does not wait for you" in text(now) and "You owe orders from the next step on" in text(now)
    assert "report for north" in text(now) and "report for south" not in text(now)


def test_a_step_opened_after_the_games_absolute_deadline_gets_its_own_time(h: Harness) -> None:
    when = (h.clock.now + timedelta(hours=1)).astimezone(ZoneInfo("Europe/Berlin")).strftime("%Y-%m-%d %H:%M")
    game_id = h.create(deadline=when, early=timedelta(0))
    h.invite(game_id, "north", NORTH)
    h.invite(game_id, "south", SOUTH)
    h.flush()
    tags = {seat: f"[DU-{game_id} {h.seat(game_id, seat).secret}]" for seat in ("north", "south")}
    for seat, address in (("north", NORTH), ("south", SOUTH)):
        h.mail(address, f"{tags[seat]} o", "ORDERS\nATTACK 2\nEND\n")
    h.tick(60)  # every order in: T1's orders played, its bids open on their own time
    h.clock.advance(2 * 3600)  # past the game's absolute deadline
    for seat, address in (("north", NORTH), ("south", SOUTH)):
        h.mail(address, f"{tags[seat]} b", "SEAL bid 1\n")
    h.tick(60)
    later = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
    assert later.key == "T2.orders"
    assert later.deadline_at - later.opened_at == AFTER_ABSOLUTE  # not due at once


def test_the_welcome_gives_a_wall_clock_deadline_in_the_games_zone_once(h: Harness) -> None:
    when = (h.clock.now + timedelta(days=3)).astimezone(ZoneInfo("Europe/Berlin"))
    game_id = h.create(deadline=when.strftime("%Y-%m-%d %H:%M"))
    letters = h.invite(game_id, "north", NORTH) or h.flush()
    (welcome,) = [text(m) for m in to(letters, NORTH) if "Welcome" in m["Subject"]]
    line = next(x for x in welcome.splitlines() if x.startswith("Deadlines: "))
    assert line.endswith("(Europe/Berlin).") and "game time zone" not in line, line


def test_help_keeps_its_summaries_in_one_column(h: Harness) -> None:
    (reply,) = to(h.mail("stranger@elsewhere.test", "help", "HELP\n"), "stranger@elsewhere.test")
    lines = text(reply).splitlines()
    join = lines.index("JOIN <game> <seat> <invite code>")  # too wide: a line of its own
    assert lines[join + 1] == " " * 29 + "take a seat you were invited to"
    assert "HELP                         this list of commands" in lines


HUGE = "99999999999999999999"  # more than any store's integer holds


@pytest.mark.parametrize(
    ("who", "subject", "body"),
    [
        ("stranger@elsewhere.test", "join", f"JOIN {HUGE} north abcdefgh\n"),
        ("stranger@elsewhere.test", "status", f"GAME {HUGE}\nSECRET abcdef\nSTATUS\n"),
        ("stranger@elsewhere.test", f"[DU-{HUGE} abcdef] status", "STATUS\n"),
        ("stranger@elsewhere.test", "observe", f"OBSERVE DU-{HUGE}\n"),
        (NORTH, "history", f"HISTORY {HUGE}\n"),
    ],
    ids=["join", "game", "tag", "observe", "history"],
)
def test_a_number_too_big_for_the_store_is_answered_not_set_aside(
    h: Harness, who: str, subject: str, body: str
) -> None:
    _, north_tag, _ = _started(h)
    subject = f"{north_tag} {subject}" if who == NORTH else subject
    answers = to(h.mail(who, subject, body), who)
    assert answers, "answered"
    with Session(h.bot.engine) as session:
        states = {row.state for row in session.exec(select(Inbound))}
    assert InboundState.SHUNTED not in states


def test_a_thanks_in_reply_to_the_orders_confirmation_keeps_the_orders(h: Harness) -> None:
    game_id, north_tag, _ = _started(h)
    (accepted,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n"), NORTH)
    reply = f"Thanks!\n\n> {text(accepted).splitlines()[0]}\n"
    (answer,) = to(h.mail(NORTH, f"Re: {north_tag} orders", reply), NORTH)
    assert "No orders accepted" in text(answer) and "Only the subject said ORDERS" in text(answer)
    with Session(h.bot.engine) as session:
        step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
        held = queries.current_orders(session, int(step.id or 0))["north"]
    assert list(held.lines) == ["ATTACK 3", "DEFEND 0"]
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nEND\n")  # an empty block in the text still clears
    with Session(h.bot.engine) as session:
        assert list(queries.current_orders(session, int(step.id or 0))["north"].lines) == []


def test_an_orders_line_with_no_order_and_no_end_keeps_the_orders(h: Harness) -> None:
    """Player trial: "Orders" above a sign-off, with no END, cleared the seat's orders, and the step
    then ran early on its defaults."""
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    (answer,) = to(h.mail(NORTH, f"{north_tag} hi", "Orders\n\nCheers,\nBob\n"), NORTH)
    said = " ".join(text(answer).split())
    assert "No orders accepted" in said and "ORDERS had no order under it and no END" in said, said
    assert "Orders accepted" not in said
    with Session(h.bot.engine) as session:
        step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
        assert list(queries.current_orders(session, int(step.id or 0))["north"].lines) == [
            "ATTACK 3",
            "DEFEND 0",
        ]
    # Orders under an ORDERS line with no END are still orders.
    (taken,) = to(h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\n"), NORTH)
    assert "Orders accepted" in text(taken)


def test_thousands_of_dropped_lines_are_kept_and_reported_as_the_first_forty_and_a_count(h: Harness) -> None:
    _, north_tag, south_tag = _started(h)
    bad = "".join(f"FIRE {n}\n" for n in range(3000))
    (answer,) = to(h.mail(NORTH, f"{north_tag} orders", f"ORDERS\nATTACK 3\n{bad}END\n"), NORTH)
    assert "3000 line(s) of your letter could not be used and were dropped" in text(answer)
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    report = next(m for m in to(h.tick(49 * 3600), NORTH) if "resolved" in m["Subject"])
    listed = [line for line in text(report).splitlines() if line.strip().startswith("FIRE ")]
    assert len(listed) == 40 and "... and 2960 more line(s)" in text(report)
    assert len(report.as_bytes()) < 60_000


def test_the_gm_abandons_a_running_game_and_its_log_closes(h: Harness) -> None:
    """GM trial: a GM had no way to end a game."""
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    letters = h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] end", "ABANDON nobody has time\n")
    assert h.game(game_id).status is GameStatus.FINISHED
    assert h.game(game_id).result == "The game master ended the game: nobody has time"
    for seat in (NORTH, SOUTH):
        said = " ".join(text(m) for m in to(letters, seat))
        assert "The game master ended the game: nobody has time" in said, said
        assert "Final chain head" in said  # the log is closed, as at any end
    assert all(s.state is not StepState.OPEN for s in h.steps(game_id))
    assert any("the game is over" in a for a in _gm(h, game_id, "ABANDON again"))


def test_the_gm_abandons_a_game_still_filling_its_seats(h: Harness) -> None:
    """GM trial: a game that never filled its seats stayed open, with no way to close it."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    h.flush()
    with Session(h.bot.engine) as session, session.begin():
        game = session.get_one(Game, game_id)
        assert h.bot.gm.abandon(session, game, "") == "ended"
    assert h.game(game_id).status is GameStatus.FINISHED
    told = to(h.flush(), NORTH)
    assert "The game master ended the game." in text(told[0]) and "log is closed" in told[1]["Subject"]
    with Session(h.bot.engine) as session:
        assert not any(line.startswith(f"{game_id} ") for line in h.bot.games.open_to_join(session))


def test_commands_under_the_signature_are_said_to_be_passed_over(h: Harness) -> None:
    """Player trial: "Hi / -- / Bob / ORDERS ... END" got "held no commands" and the help, with no
    word of why the orders under the signature were not read."""
    _, north_tag, _ = _started(h)
    body = "Hi\n\n-- \nBob\nORDERS\nATTACK 1\nDEFEND 1\nEND\n"
    (answer,) = to(h.mail(NORTH, f"{north_tag} hello", body), NORTH)
    said = " ".join(text(answer).split())
    assert "Lines under your signature (the line '-- ') are not read" in said, said
    (plain,) = to(h.mail(NORTH, f"{north_tag} hello", "Hi\n\n-- \nBob\n"), NORTH)
    assert "under your signature" not in text(plain)
