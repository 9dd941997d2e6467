# SPDX-License-Identifier: GPL-3.0-or-later
"""Games by mail: creating a game, taking seats, opening steps, finishing.

Every method runs inside the caller's transaction (``session``); the caller
commits. Resolution, deadlines and GM actions are in ``mailbot.services.turns``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, col, select

from mailbot.core import deadlines, lifecycle
from mailbot.core.dice import DiceStream, commitment, order_digest
from mailbot.core.game import Setup, Step
from mailbot.errors import ConfigError
from mailbot.games.registry import AnyGame, find_game
from mailbot.services import chainlog
from mailbot.services.gamedata import load_game_data
from mailbot.services.letters import Letter, Postman
from mailbot.store.game_tables import (
    Game,
    GameStatus,
    OrderSet,
    Report,
    RollRow,
    Seat,
    SeatStatus,
    StepRow,
    StepState,
    row_id,
)

if TYPE_CHECKING:  # Reports renders with Games' queries; the import is for typing only
    from mailbot.services.reports import Reports

TOKEN_ALPHABET = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no look-alikes


def new_token(length: int = 6) -> str:
    return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(length))


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


SUBJECT_TAG = re.compile(r"\[[A-Z]{2}-\d+ [A-Za-z0-9]+\]\s*")


def untagged(subject: str) -> str:
    """A subject without its [XX-n secret] tag: for letters that may reach someone else."""
    return SUBJECT_TAG.sub("", subject)


def tag(game: Game) -> str:
    """The short game code used in subjects, e.g. ``DU-3``."""
    return f"{game.plugin[:2].upper()}-{game.id}"


class Games:
    """Game lifecycle use cases (one transaction each, owned by the caller)."""

    def __init__(
        self,
        *,
        postman: Postman,
        reports: Reports,
        clock: Callable[[], datetime],
        draw_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
    ) -> None:
        self.postman = postman
        self.clock = clock
        self.draw_seed = draw_seed
        self.reports = reports

    # -- queries -------------------------------------------------------------

    @staticmethod
    def plugin(game: Game) -> AnyGame:
        return find_game(game.plugin)

    @staticmethod
    def seats(session: Session, game_id: int) -> list[Seat]:
        return list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.id))))

    @staticmethod
    def seat(session: Session, game_id: int, name: str) -> Seat | None:
        """A seat by name, in any case (players write "axis" for the plugin's "Axis")."""
        wanted = name.strip().lower()
        return next((s for s in Games.seats(session, game_id) if s.name.lower() == wanted), None)

    @staticmethod
    def open_step(session: Session, game_id: int) -> StepRow | None:
        query = select(StepRow).where(StepRow.game_id == game_id, StepRow.state == StepState.OPEN)
        return session.exec(query).first()

    @staticmethod
    def current_orders(session: Session, step_id: int) -> dict[str, OrderSet]:
        query = select(OrderSet).where(OrderSet.step_id == step_id, col(OrderSet.current))
        return {row.seat: row for row in session.exec(query)}

    # -- creating and joining ---------------------------------------------------

    def create(self, session: Session, setup: GameSetup) -> Game:
        plugin = find_game(setup.plugin)
        spec = deadlines.parse_deadline_spec(setup.deadline)
        if isinstance(spec, deadlines.SpecProblem):
            raise ConfigError(f"deadline {setup.deadline!r}: {spec.reason}")
        if not deadlines.valid_zone(setup.timezone):
            raise ConfigError(f"unknown time zone {setup.timezone!r}")
        data = load_game_data(plugin.name)
        seats = plugin.seats(setup.scenario, data)
        now = self.clock()
        # The set-up rolls (initial wind, first deal...) get a stream of their own, kept as
        # step "setup" so that the opening position can be verified like every other step.
        seed = self.draw_seed()
        dice = DiceStream(seed, order_digest({}), "setup")
        state = plugin.new_game(Setup(setup.scenario, seats, dict(setup.options), data), dice=dice)
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
            reveal_at_end=plugin.hidden_information,
            options=dict(setup.options),
            state=plugin.dump(state),
            created_at=now,
        )
        session.add(game)
        session.flush()
        for name in seats:
            session.add(
                Seat(
                    game_id=self._id(game),
                    name=name,
                    address="",
                    secret=new_token(),
                    invite_code=new_token(8),
                )
            )
        self._setup_step(session, game, seed, dice, now)
        chainlog.append(session, self._id(game), "game-created", self._created_payload(game, seats), now)
        return game

    def _setup_step(self, session: Session, game: Game, seed: bytes, dice: DiceStream, now: datetime) -> None:
        row = StepRow(
            game_id=self._id(game),
            key="setup",
            turn=0,
            kind="setup",
            title="set-up",
            state=StepState.RESOLVED,
            opened_at=now,
            deadline_at=now,
            closed_at=now,
            seed=seed.hex(),
            commitment=commitment(seed),
            orders_digest=order_digest({}),
        )
        session.add(row)
        session.flush()
        for position, roll in enumerate(dice.log):
            session.add(RollRow(step_id=row_id(row), position=position, data=roll.as_dict()))

    @staticmethod
    def _created_payload(game: Game, seats: Sequence[str]) -> dict[str, Any]:
        return {
            "plugin": game.plugin,
            "scenario": game.scenario,
            "title": game.title,
            "seats": list(seats),
            "deadline": game.deadline_spec,
        }

    @staticmethod
    def _id(game: Game) -> int:
        if game.id is None:
            raise ConfigError("game has no id yet")
        return game.id

    def take_seat(self, session: Session, game: Game, seat: Seat, address: str) -> None:
        """Bind an address to a seat (GM invite or JOIN by mail) and send the welcome letter."""
        now = self.clock()
        seat.address = address.lower()
        seat.status = SeatStatus.ACTIVE
        session.add(seat)
        chainlog.append(session, self._id(game), "seat-taken", {"seat": seat.name}, now)
        self._welcome(session, game, seat, now)
        seats = self.seats(session, self._id(game))
        if game.status is GameStatus.SETUP and all(s.status is SeatStatus.ACTIVE for s in seats):
            self.start(session, game)

    def _welcome(self, session: Session, game: Game, seat: Seat, now: datetime) -> None:
        letter = Letter(seat.address, f"[{tag(game)} {seat.secret}] Welcome to {game.title}")
        letter.section(
            f"You play {seat.name} in {game.title}",
            [
                f"Game: {tag(game)} ({game.plugin}, scenario {game.scenario})",
                f"Your secret: {seat.secret}",
                "",
                "Keep the secret to yourself. Every letter you send must come from this address",
                f"and carry the secret: keep [{tag(game)} {seat.secret}] in the subject (replying to",
                f"this letter does that), or write a line SECRET {seat.secret} in the body.",
                f"Deadlines: {self.describe_deadline(game)} ({game.timezone}).",
            ],
        )
        self.postman.post(session, letter, kind="welcome", now=now)

    def resend_reports(self, session: Session, game: Game, seat: Seat, turn: int | None = None) -> int:
        """Send a seat's own past reports again, as they were written (HISTORY, substitutes)."""
        query = select(Report).where(Report.game_id == game.id, Report.seat == seat.name)
        if turn is not None:
            query = query.where(Report.turn == turn)
        reports = session.exec(query.order_by(col(Report.id))).all()
        for report in reports:
            title = untagged(report.subject)
            letter = Letter(seat.address, f"[history] {title}").section(title, report.text.splitlines())
            self.postman.post(session, letter, kind="history", now=self.clock())
        return len(reports)

    # -- the log ---------------------------------------------------------------------

    def note(self, session: Session, game: Game, kind: str, payload: Mapping[str, Any]) -> None:
        chainlog.append(session, self._id(game), kind, payload, self.clock())

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
    ) -> None:
        """Log accepted orders; once every owing seat has sent, early processing may start."""
        if log:
            payload = {"step": step.key, "seat": seat, "digest": order_digest({seat: list(lines)})}
            self.note(session, game, "orders-replaced" if replaced else "orders", payload)
        session.flush()
        held = self.current_orders(session, row_id(step))
        sent = {name: lifecycle.SeatFacts(name, sent=name in held) for name in step.owing}
        opened = lifecycle.StepFacts(step.key, tuple(step.owing), step.opened_at, step.deadline_at)
        early = lifecycle.Policy(early=timedelta(seconds=game.early_seconds))
        step.early_at = lifecycle.early_from(opened, sent, early, self.clock()) or step.early_at
        session.add(step)

    # -- steps -------------------------------------------------------------------

    def start(self, session: Session, game: Game) -> None:
        game.status = GameStatus.RUNNING
        session.add(game)
        chainlog.append(session, self._id(game), "game-started", {}, self.clock())
        self.reports.opening(session, game, self.open_next(session, game))

    def open_next(self, session: Session, game: Game) -> StepRow | None:
        """Open the step the plugin declares now; finish the game when there is none."""
        plugin = self.plugin(game)
        step = plugin.step(plugin.load(game.state))
        if step is None:
            return None
        now = self.clock()
        seed = self.draw_seed()
        row = StepRow(
            game_id=self._id(game),
            key=step.key,
            attempt=self._next_attempt(session, game, step.key),
            turn=step.turn,
            kind=step.kind.value,
            title=step.title,
            owing=sorted(step.owing),
            seal_labels=list(step.seal_labels),
            opened_at=now,
            deadline_at=self.deadline_for(game, step, now),
            seed=seed.hex(),
            commitment=commitment(seed),
            snapshot=dict(game.state),
        )
        session.add(row)
        session.flush()
        payload = {"step": row.key, "attempt": row.attempt, "commitment": row.commitment, "owing": row.owing}
        chainlog.append(session, self._id(game), "step-opened", payload, now)
        return row

    def _next_attempt(self, session: Session, game: Game, key: str) -> int:
        query = select(StepRow).where(StepRow.game_id == game.id, StepRow.key == key)
        return 1 + max((row.attempt for row in session.exec(query)), default=0)

    @staticmethod
    def describe_deadline(game: Game) -> str:
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        return game.deadline_spec if isinstance(spec, deadlines.SpecProblem) else deadlines.describe(spec)

    @staticmethod
    def deadline_for(game: Game, step: Step, opened_at: datetime) -> datetime:
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        if isinstance(spec, deadlines.SpecProblem):
            raise ConfigError(f"game {game.id}: bad deadline {game.deadline_spec!r}")
        return deadlines.step_deadline(spec, opened_at, game.timezone, step.duration)

    def fresh_deadline(self, game: Game, step: StepRow) -> datetime:
        """A new deadline counted from now (after a pause), by the game's rule."""
        now = self.clock()
        spec = deadlines.parse_deadline_spec(game.deadline_spec)
        span = step.deadline_at - step.opened_at
        if isinstance(spec, deadlines.AbsoluteDeadline | deadlines.SpecProblem):
            return now + max(span, timedelta(hours=24))
        return deadlines.step_deadline(spec, now, game.timezone, None)
