# SPDX-License-Identifier: GPL-3.0-or-later
"""Games by mail: creating a game, taking seats, opening steps, finishing.

Every method runs inside the caller's transaction (``session``); the caller
commits. Resolution, deadlines and GM actions are in ``mailbot.services.play.turns``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core import deadlines, lifecycle
from mailbot.core.chain import roll_log, salted, step_salt
from mailbot.core.dice import MAX_NONCE, DiceStream, order_digest
from mailbot.core.game import Setup, Step
from mailbot.errors import ConfigError, GameError
from mailbot.mail.mime import bare_address
from mailbot.registry import find_game
from mailbot.services.base import chainlog, dicechain, queries
from mailbot.services.base.gamedata import load_game_data
from mailbot.services.base.gameoptions import game_options, try_setup
from mailbot.services.base.tags import fresh_seed, new_token, tag
from mailbot.services.base.transactions import forget, number_now
from mailbot.services.play import history, setupdice
from mailbot.services.play.reports import Reports
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import (
    Game,
    GameStatus,
    OrderSet,
    RollRow,
    Seat,
    SeatStatus,
    StepRow,
    StepState,
    row_id,
)
from mailbot.store.rows import new_row


def resolved_payload(
    step: StepRow,
    digest: str,
    rolls: Sequence[Mapping[str, Any]],
    entropy: tuple[str, int],
    defaulted: Sequence[str],
) -> dict[str, Any]:
    """The "step-resolved" chain entry: the orders digest and roll log salted with the step's seed.

    Unsalted, a player who knows his own orders could test guesses about the other side's
    against the digest; the salt opens with the seed, when the orders may be known. Not
    even the number of rolls is given in the clear: it can depend on hidden orders.
    """
    salt = step_salt(bytes.fromhex(step.seed), step.key)
    return {
        "step": step.key,
        "attempt": step.attempt,
        "orders": salted(digest, salt),
        "roll_log": salted(roll_log(rolls), salt),
        "entropy": entropy[0],
        "contributions": entropy[1],
        "defaulted": list(defaulted),
    }


@dataclass(frozen=True)
class GameSetup:
    plugin: str
    scenario: str
    title: str
    deadline: str
    timezone: str
    gm_address: str
    options: Mapping[str, Any] = field(default_factory=dict)
    grace: timedelta = timedelta(0)
    early: timedelta = timedelta(minutes=5)
    reminders: Sequence[timedelta] = (timedelta(hours=12),)
    late_limit: int = 2
    anonymous_press: bool = False
    observers_allowed: bool = True


class Games:
    """Game lifecycle use cases (one transaction each, owned by the caller)."""

    def __init__(
        self,
        *,
        postman: Postman,
        reports: Reports,
        clock: Callable[[], datetime],
        draw_seed: Callable[[], bytes] = fresh_seed,
    ) -> None:
        self.postman = postman
        self.clock = clock
        self.draw_seed = draw_seed
        self.reports = reports

    # -- queries -------------------------------------------------------------

    @classmethod
    def open_to_join(cls, session: Session) -> list[str]:
        """LIST: one line per game in set-up with a seat nobody holds yet (its free seats and
        deadline rule); what the judges' LIST tells anyone, no address or code."""
        lines = []
        for game in session.exec(select(Game).where(Game.status == GameStatus.SETUP).order_by(col(Game.id))):
            free = [
                s.name
                for s in queries.seats(session, row_id(game))
                if s.status is SeatStatus.INVITED and not s.address
            ]
            if free:
                lines.append(
                    f"{row_id(game)} ({tag(game)}) {game.title}: {game.plugin}, scenario {game.scenario};"
                    f" deadlines {cls.describe_deadline(game)}; free seats: {', '.join(free)}"
                )
        return lines

    @staticmethod
    def open_to_observe(session: Session) -> list[str]:
        """LIST's second part: the games not over that take observers (number, tag, title, game)."""
        query = (
            select(Game)
            .where(col(Game.status) != GameStatus.FINISHED, col(Game.observers_allowed))
            .order_by(col(Game.id))
        )
        return [
            f"{row_id(game)} ({tag(game)}) {game.title}: {game.plugin}, {game.status.value}"
            for game in session.exec(query)
        ]

    # -- creating and joining ---------------------------------------------------

    def create(self, session: Session, setup: GameSetup) -> Game:
        plugin = find_game(setup.plugin)
        spec = deadlines.parse_deadline_spec(setup.deadline)
        if isinstance(spec, deadlines.SpecProblem):
            raise ConfigError(f"deadline {setup.deadline!r}: {spec.reason}")
        if not deadlines.valid_zone(setup.timezone):
            raise ConfigError(f"unknown time zone {setup.timezone!r}")
        now = self.clock()
        if isinstance(spec, deadlines.AbsoluteDeadline) and spec.next_deadline(now, setup.timezone) <= now:
            raise ConfigError(f"deadline {setup.deadline!r} is already past")
        if bare_address(setup.gm_address) is None:
            raise ConfigError(f"the game master's address {setup.gm_address!r} is not an e-mail address")
        data = load_game_data(plugin.name)
        try:
            seats = plugin.seats(setup.scenario, data)
        except GameError as exc:  # a scenario the game does not know: the GM's to mend
            raise ConfigError(f"{plugin.name}: {exc}") from exc
        chosen = game_options(plugin, setup.options)
        try_setup(plugin, Setup(setup.scenario, seats, chosen, data))
        game = Game(
            plugin=plugin.name,
            scenario=setup.scenario,
            title=setup.title,
            deadline_spec=setup.deadline,
            timezone=setup.timezone,
            grace_seconds=int(setup.grace.total_seconds()),
            early_seconds=int(setup.early.total_seconds()),
            reminders=[int(r.total_seconds()) for r in setup.reminders],
            late_limit=setup.late_limit,
            gm_address=setup.gm_address,
            gm_secret=new_token(8),
            anonymous_press=setup.anonymous_press,
            observers_allowed=setup.observers_allowed,
            reveal_at_end=plugin.hidden_information,
            options=chosen,
            state={},  # set up when every seat has joined (start)
            created_at=now,
        )
        session.add(game)
        session.flush()
        forget(session, "seats", queries.id_of(game))  # read before its seats existed
        for name in seats:
            session.add(
                Seat(
                    game_id=queries.id_of(game),
                    name=name,
                    address="",
                    secret=new_token(),
                    invite_code=new_token(8),
                )
            )
        # The seed chain's anchor is public before any letter counts (``dicechain``).
        created = self._created_payload(game, seats)
        created["server_anchor"] = dicechain.start(session, queries.id_of(game), self.draw_seed())
        chainlog.append(session, queries.id_of(game), "game-created", created, now)
        self._setup_step(session, game, seats, now)
        return game

    def _setup_step(self, session: Session, game: Game, seats: Sequence[str], now: datetime) -> None:
        """The set-up rolls (initial wind, first deal...) as a step of their own.

        Its seed is committed now, the commitment goes out with every welcome letter, and
        the rolls are made only when every seat has joined (``start``), keyed with the
        entropy of the JOIN letters: the GM can neither re-create a game until he likes
        its set-up without the players seeing it, nor predict the set-up dice.
        """
        seed, round_ = dicechain.next_seed(session, queries.id_of(game), self.draw_seed)
        row = new_row(
            StepRow,
            game_id=queries.id_of(game),
            key="setup",
            turn=0,
            kind="setup",
            title="set-up",
            owing=sorted(seats),
            opened_at=now,
            deadline_at=now,
            seed=seed.hex(),
            commitment=dicechain.commitment_of(seed, round_),
        )
        self._add_step(session, game, row, now, round_)

    def _add_step(
        self, session: Session, game: Game, row: StepRow, now: datetime, round_: int | None = None
    ) -> None:
        """A step opened: its row and its "step-opened" link, written together (the reports read both).

        ``round_``: the step attempt's element of the game's seed chain (``dicechain``)."""
        session.add(row)
        payload = {"step": row.key, "attempt": row.attempt, "commitment": row.commitment, "owing": row.owing}
        if round_ is not None:
            payload["round"] = round_
        chainlog.append(session, queries.id_of(game), "step-opened", payload, now)
        if not number_now(session, row):
            session.flush()  # the database numbers it: the reports hand the step around by its id

    def _set_up(self, session: Session, game: Game) -> None:
        """Roll the set-up with its committed seed and the round-1 reveals of the seats that had
        a dice chain when every seat had joined, else the JOIN letters' entropy (``dicechain``)."""
        row = queries.setup_step(session, queries.id_of(game))
        if row is None or row.state is not StepState.OPEN:
            return
        plugin, data, now = queries.plugin(game), load_game_data(game.plugin), self.clock()
        inputs = dicechain.step_dice(session, row, lambda: queries.step_entropy(session, row))
        entropy = (inputs.entropy, inputs.count)
        digest = inputs.digest_for_dice(order_digest({}))
        dice = DiceStream(bytes.fromhex(row.seed), digest, row.key, entropy[0])
        seats = plugin.seats(game.scenario, data)
        game.state = plugin.dump(
            plugin.new_game(Setup(game.scenario, seats, dict(game.options), data), dice=dice)
        )
        session.add(game)
        rolls = [roll.as_dict() for roll in dice.log]
        for position, roll in enumerate(rolls):
            session.add(new_row(RollRow, step_id=row_id(row), position=position, data=roll))
        row.state, row.closed_at, row.orders_digest = StepState.RESOLVED, now, order_digest({})
        row.revealed = not game.reveal_at_end
        session.add(row)
        payload = resolved_payload(row, row.orders_digest, rolls, entropy, []) | inputs.payload()
        chainlog.append(session, queries.id_of(game), "step-resolved", payload, now)

    @staticmethod
    def _created_payload(game: Game, seats: Sequence[str]) -> dict[str, Any]:
        return {
            "plugin": game.plugin,
            "scenario": game.scenario,
            "title": game.title,
            "seats": list(seats),
            "deadline": game.deadline_spec,
        }

    def take_seat(
        self,
        session: Session,
        game: Game,
        seat: Seat,
        address: str,
        *,
        contribution: tuple[str, str] | None = None,
    ) -> None:
        """Bind an address to a seat (GM invite or JOIN by mail) and send the welcome letter.

        ``contribution`` is the JOIN letter's (Message-ID, nonce): entropy for the set-up dice.
        """
        now = self.clock()
        seat.address = address.lower()
        seat.status = SeatStatus.ACTIVE
        session.add(seat)
        chainlog.append(session, queries.id_of(game), "seat-taken", {"seat": seat.name}, now)
        setup = queries.setup_step(session, queries.id_of(game))
        if contribution is not None and setup is not None and setup.state is StepState.OPEN:
            self.note_entropy(session, game, setup, seat.name, contribution)
        self._welcome(session, game, seat, now)
        seats = queries.seats(session, queries.id_of(game))
        if game.status is GameStatus.SETUP and all(s.status is SeatStatus.ACTIVE for s in seats):
            self._all_joined(session, game, seats)

    def _all_joined(self, session: Session, game: Game, seats: Sequence[Seat]) -> None:
        """Every seat is taken: start, or first take the round-1 reveals of the seats with a
        dice chain (``setupdice``), until they are all in or the deadline passes."""
        setup = queries.setup_step(session, queries.id_of(game))
        if setup is None or setup.state is not StepState.OPEN:
            self.start(session, game)
            return
        if dicechain.Links.read(session, setup.game_id).counted_at(setup)[0] >= 0:
            return  # a seat handed over while the set-up waits: its anchors stay closed
        deadline = self.fresh_deadline(game, setup)
        chained = dicechain.close_setup(session, setup, deadline, self.clock())
        if not chained:
            self.start(session, game)
            return
        setup.deadline_at = deadline
        session.add(setup)
        setupdice.ask_reveals(
            self.postman, session, game, seats, chained=chained, setup=setup, now=self.clock()
        )

    def _welcome(self, session: Session, game: Game, seat: Seat, now: datetime) -> None:
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] Welcome to {game.title}")
        letter.section(
            f"You play {seat.name} in {game.title}",
            [
                f"Game: {tag(game)} ({game.plugin}, scenario {game.scenario})",
                f"Your secret: {seat.secret}",
                "",
                "Keep the secret to yourself. Every letter you send must come from this address",
                f"and carry the secret: keep [{tag(game)} {seat.secret}] in the subject (replying to",
                f"this letter does that), or write a line SECRET {seat.secret} in the body.",
                f"Deadlines: {self.describe_deadline(game)}.",
                *setupdice.welcome_lines(session, game),
            ],
        )
        self.postman.post(session, letter, kind="welcome", now=now)

    def resend_reports(self, session: Session, game: Game, seat: Seat, turn: int | None = None) -> int:
        """Send a seat's own past reports again, as they were written (HISTORY, substitutes)."""
        return history.resend(session, self.postman, game, seat, turn, now=self.clock())

    def seat_released(
        self, session: Session, game: Game, seat: Seat, address: str, reason: str, *, ejected: bool = False
    ) -> None:
        """Tell the player a seat was taken from (REPLACE, EJECT) that it was; a new player is not
        named. The old secret is not in the subject: it is void."""
        if not address:
            return
        letter = Draft(address, f"[{tag(game)}] You no longer play {seat.name} in {game.title}")
        done = (
            f"removed you from {seat.name} ({tag(game)}): the seat plays its default orders."
            if ejected
            else f"handed {seat.name} ({tag(game)}) to another player."
        )
        letter.section(
            f"You no longer play {seat.name}",
            [
                f"The game master has {done}",
                "Your secret for the seat is void; letters for it are no longer read.",
                f"Reason: {reason or '(none given)'}",
                "Thank you for playing. If this is wrong, write to the game master.",
            ],
        )
        self.postman.post(session, letter, kind="announcement", now=self.clock())

    # -- the log ---------------------------------------------------------------------

    def note_orders(
        self,
        session: Session,
        game: Game,
        step: StepRow,
        seat: str,
        lines: Sequence[str],
        *,
        replaced: bool,
        log: bool = True,
        salt: str = "",
        held: Collection[str] | None = None,
    ) -> None:
        """Log accepted orders; once every owing seat has sent, early processing may start.

        The chain holds the seat's order digest salted with the order set's own ``salt``
        (revealed with the orders in the archive), never the bare digest. ``held``: the seats
        holding current orders for the step now, this one included, when the caller knows them
        (else they are read back, after a flush).
        """
        if log:
            digest = order_digest({seat: list(lines)})
            payload = {
                "step": step.key,
                "attempt": step.attempt,
                "seat": seat,
                "commitment": salted(digest, bytes.fromhex(salt)),
            }
            queries.note(session, game, "orders-replaced" if replaced else "orders", payload, self.clock())
        if held is None:
            session.flush()
            held = queries.current_orders(session, row_id(step)).keys()
        if all(name in held for name in step.owing):
            sent = {name: lifecycle.SeatFacts(name, sent=True) for name in step.owing}
        else:  # a seat without a player is in without a letter: the seats tell which
            sent = seat_facts(queries.seats(session, row_id(game)), step, held)
        self._mark_early(session, game, step, sent)

    def mark_early(self, session: Session, game: Game, step: StepRow | None = None) -> None:
        """The open step (``step``, else the one stored) is owed by no seat with a player that has
        not sent: a seat lost its player (EJECT, RESIGN, CONCEDE), or the step opened owed only by
        seats nobody plays. Its early processing starts now, as when the last orders come in."""
        step = step or queries.open_step(session, row_id(game))
        if step is None or step.kind == "setup" or step.early_at is not None:
            return
        held = queries.current_orders(session, row_id(step))
        self._mark_early(session, game, step, seat_facts(queries.seats(session, row_id(game)), step, held))

    def _mark_early(
        self, session: Session, game: Game, step: StepRow, seats: Mapping[str, lifecycle.SeatFacts]
    ) -> None:
        opened = lifecycle.StepFacts(step.key, tuple(step.owing), step.opened_at, step.deadline_at)
        early = lifecycle.Policy(early=timedelta(seconds=game.early_seconds))
        step.early_at = lifecycle.early_from(opened, seats, early, self.clock()) or step.early_at
        session.add(step)

    def note_entropy(
        self, session: Session, game: Game, step: StepRow, seat: str, contribution: tuple[str, str]
    ) -> None:
        """Log one accepted letter's (Message-ID, nonce) for the step's dice (``mailbot.core.dice``)."""
        message_id, nonce = contribution
        payload = {
            "step": step.key,
            "attempt": step.attempt,
            "seat": seat,
            "message_id": message_id,
            "nonce": " ".join(nonce.split())[:MAX_NONCE],
        }
        queries.note(session, game, "entropy", payload, self.clock())

    # -- steps -------------------------------------------------------------------

    def start(self, session: Session, game: Game) -> None:
        self._set_up(session, game)
        game.status = GameStatus.RUNNING
        session.add(game)
        chainlog.append(session, queries.id_of(game), "game-started", {}, self.clock())
        first = self.open_next(session, game)
        self.reports.opening(session, game, first)
        self._tell_gm_started(session, game, first)

    def _tell_gm_started(self, session: Session, game: Game, first: StepRow | None) -> None:
        """The GM's start letter: who plays which seat, the first step and its deadline."""
        seats = queries.seats(session, queries.id_of(game))
        lines = [
            "Every seat is taken; the players have their first reports.",
            "Seats:",
            *(f"  {seat.name}: {seat.address}" for seat in seats),
            f"Deadlines: {self.describe_deadline(game)}.",
        ]
        if first is not None:
            when = deadlines.local_time(first.deadline_at, game.timezone)
            lines.append(f"Open now: {first.title}, deadline {when}.")
        lines.append("Press between players is copied to you.")
        self.reports.gm(session, game, f"{game.title} has started", lines)

    def open_next(self, session: Session, game: Game) -> StepRow | None:
        """Open the step the plugin declares now; finish the game when there is none."""
        plugin = queries.plugin(game)
        step = plugin.step(plugin.load(game.state))
        if step is None:
            return None
        now = self.clock()
        seed, round_ = dicechain.next_seed(session, queries.id_of(game), self.draw_seed)
        row = new_row(
            StepRow,
            game_id=queries.id_of(game),
            key=step.key,
            attempt=queries.next_attempt(session, queries.id_of(game), step.key),
            turn=step.turn,
            kind=step.kind.value,
            title=step.title,
            owing=sorted(step.owing),
            seal_labels=list(step.seal_labels),
            opened_at=now,
            deadline_at=self.deadline_for(game, step, now),
            seed=seed.hex(),
            commitment=dicechain.commitment_of(seed, round_),
            snapshot=dict(game.state),
        )
        self._add_step(session, game, row, now, round_)
        if row.kind == "sealed" and row.attempt > 1:
            self._carry_sealed(session, game, row)
        return row

    def _carry_sealed(self, session: Session, game: Game, row: StepRow) -> None:
        """A sealed step opened again after a rollback: the values as they were opened stand.

        Everyone has seen them, so sealing anew would let a seat answer the other's value;
        SEAL is refused in this attempt (``Sealing``) and the opened values are used.
        """
        earlier = queries.opened_before(session, row)
        if earlier is None:
            return
        receipts: dict[str, dict[str, str]] = {}
        for held in queries.current_orders(session, row_id(earlier)).values():
            if held.defaulted or held.seat not in row.owing:
                continue
            session.add(held.copied_to(row_id(row)))
            receipts[held.seat] = {label: item["receipt"] for label, item in held.sealed.items()}
        payload = {
            "step": row.key,
            "attempt": row.attempt,
            "from_attempt": earlier.attempt,
            "receipts": receipts,
        }
        chainlog.append(session, queries.id_of(game), "sealed-carried", payload, self.clock())

    @staticmethod
    def describe_deadline(game: Game) -> str:
        """The game's deadline rule in words, a wall-clock rule in the zone it is read in."""
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        if isinstance(spec, deadlines.SpecProblem):
            return game.deadline_spec
        words = deadlines.describe(spec).replace("(game time zone)", f"({game.timezone})")
        if not isinstance(spec, deadlines.AbsoluteDeadline):
            return words
        # A time the clocks skip or show twice: the instant it stands for, beside it.
        notes = deadlines.wall_time_notes(spec, game.timezone, game.created_at)
        return f"{words} ({notes[0].brief()})" if notes else words

    def deadline_notes(self, game: Game) -> list[str]:
        """What the game master should know of the wall-clock time his deadline rule names: each
        day in the coming year on which the clocks skip it or show it twice, and the deadline then
        (``game create`` prints them)."""
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        if isinstance(spec, deadlines.SpecProblem):
            return []
        return [note.text() for note in deadlines.wall_time_notes(spec, game.timezone, self.clock())]

    @staticmethod
    def deadline_for(game: Game, step: Step, opened_at: datetime) -> datetime:
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        if isinstance(spec, deadlines.SpecProblem):
            raise ConfigError(f"game {game.id}: bad deadline {game.deadline_spec!r}")
        at = deadlines.step_deadline(spec, opened_at, game.timezone, step.duration)
        if isinstance(spec, deadlines.AbsoluteDeadline) and at <= opened_at:
            # An absolute time is one deadline: a step opened after it would be due at once.
            return opened_at + AFTER_ABSOLUTE
        return at

    def fresh_deadline(self, game: Game, step: StepRow) -> datetime:
        """A new deadline counted from now (after a pause), by the game's rule."""
        now = self.clock()
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        span = step.deadline_at - step.opened_at
        if isinstance(spec, deadlines.AbsoluteDeadline | deadlines.SpecProblem):
            return now + max(span, timedelta(hours=24))
        return deadlines.step_deadline(spec, now, game.timezone, None)


#: the time a step gets that opens after its game's absolute deadline has passed
AFTER_ABSOLUTE = timedelta(hours=48)


def seat_facts(
    seats: Sequence[Seat], step: StepRow, held: Mapping[str, OrderSet] | Collection[str]
) -> dict[str, lifecycle.SeatFacts]:
    """Each seat of the game as the lifecycle sees it for ``step``: whether it holds orders
    (``held``: the seats that do), and whether a player owes them (``Seat.played``); the
    deadline's facts (WAIT, CONFIRM, vacations, misses) are the tick's (``Turns.facts``)."""
    return {
        seat.name: lifecycle.SeatFacts(seat.name, sent=seat.name in held, active=seat.played(step.opened_at))
        for seat in seats
    }
