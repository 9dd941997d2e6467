# SPDX-License-Identifier: GPL-3.0-or-later
"""Turns: resolving a step, reports to every seat, deadlines and the safety interlock.

Resolution is deterministic: the plugin gets the state the step opened on,
every seat's normalised orders (or the plugin's defaults for the silent) and a
dice stream keyed by the step's committed seed, the players' entropy and the
digest of those orders. A rolled-back step is a new attempt with a fresh seed
(``GmActions.rollback``): a seed the players already hold predicts nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from mailbot.core import lifecycle
from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Line, Outcome
from mailbot.services.base import chainlog, dicechain, queries
from mailbot.services.play import setupdice
from mailbot.services.play.games import Games, resolved_payload, seat_facts
from mailbot.services.play.reports import Reports
from mailbot.store.game_tables import (
    Game,
    GameStatus,
    OrderSet,
    RollRow,
    Seat,
    StepRow,
    StepState,
    row_id,
)
from mailbot.store.rows import new_row

log = logging.getLogger(__name__)


@dataclass
class Resolution:
    outcome: Outcome[Any]
    orders: dict[str, list[str]]
    defaulted: list[str]
    digest: str
    rolls: list[dict[str, Any]] = field(default_factory=list)
    entropy: tuple[str, int] = ("", 0)  # the players' mixed entropy and how many letters gave it
    dice: dict[str, Any] = field(default_factory=dict)  # the dice version 3 facts (``dicechain``)
    dropped: dict[str, list[str]] = field(default_factory=dict)  # refused lines of the orders used


SeatMap = dict[str, lifecycle.SeatFacts]


def policy(game: Game, max_missed_share: float = lifecycle.Policy.max_missed_share) -> lifecycle.Policy:
    """The game's timing rules as the lifecycle's plain values."""
    return lifecycle.Policy(
        grace=timedelta(seconds=game.grace_seconds),
        early=timedelta(seconds=game.early_seconds),
        reminders=tuple(timedelta(seconds=s) for s in game.reminders),
        late_limit=game.late_limit,
        max_missed_share=max_missed_share,
    )


class Turns:
    def __init__(
        self,
        *,
        games: Games,
        reports: Reports,
        clock: Callable[[], datetime],
        max_missed_share: float = lifecycle.Policy.max_missed_share,
    ) -> None:
        self.games = games
        self.reports = reports
        self.clock = clock
        # the interlock: a deadline with more seats silent than this pauses the game instead
        self.max_missed_share = max_missed_share

    # -- resolving ---------------------------------------------------------------

    def compute(
        self, session: Session, game: Game, step: StepRow, *, seed: bytes | None = None
    ) -> Resolution:
        """Resolve ``step`` without writing anything (processing; PREVIEW passes a throwaway ``seed``)."""
        plugin = queries.plugin(game)
        state = plugin.load(step.snapshot)
        current = queries.current_orders(session, row_id(step))
        held = {seat: row.lines for seat, row in current.items()}
        dropped = {seat: list(row.dropped) for seat, row in current.items() if row.dropped}
        filled = lifecycle.fill_defaults(step.owing, held, lambda seat: plugin.default_orders(state, seat))
        orders, defaulted = filled.orders, filled.defaulted
        digest = order_digest(orders)
        inputs = dicechain.step_dice(session, step, lambda: queries.step_entropy(session, step))
        entropy = (inputs.entropy, inputs.count)
        keyed = seed or bytes.fromhex(step.seed)
        dice = DiceStream(keyed, inputs.digest_for_dice(digest), step.key, entropy[0])
        parsed = {
            seat: plugin.parse(state, seat, [Line(n, text) for n, text in enumerate(lines, 1)]).orders
            for seat, lines in orders.items()
        }
        outcome = plugin.resolve(state, parsed, dice=dice)
        rolls = [roll.as_dict() for roll in dice.log]
        return Resolution(outcome, orders, defaulted, digest, rolls, entropy, inputs.payload(), dropped)

    def process(self, session: Session, game: Game, step: StepRow) -> None:
        """Resolve the open step for real: store, report to every seat, open the next step.

        Quiet steps right after it (``core.lifecycle``, "Quiet steps") are resolved at once on
        the standing orders, with no letter, no deadline and no misses; the one report then
        covers the step and every quiet step after it, each event tagged with its step's title.
        """
        now = self.clock()
        result = self._resolve(session, game, step, now)
        seats = self._late(session, game, step, result)
        nxt = None if result.outcome.finished else self.games.open_next(session, game)
        quiet, nxt = self._quiet_run(session, game, nxt, now)
        if nxt is not None and any(not seat.played(nxt.opened_at) for seat in seats):
            self.games.mark_early(session, game, nxt)  # it may be owed by no seat with a player
        final = quiet[-1][1].outcome if quiet else result.outcome
        if nxt is None:
            ended = final.result or "the game has no further step"
            self._finish(session, game, ended, now)
            # The players read it in their last report; the GM, who gets no report, here.
            self.reports.gm(session, game, "Game over", [ended, f"The game ended with {step.title}."])
        defaults = {seat: result.orders[seat] for seat in result.defaulted}
        dropped = result.dropped
        events = self._combined(step, result, quiet)
        rows = [row for row, _ in quiet]
        self.reports.resolved(
            session, game, step, events, nxt=nxt, defaults=defaults, quiet=rows, dropped=dropped
        )
        if nxt is None:
            self.reports.closing(session, game)  # the final chain head, after every last report
        # Counts and seat names only: orders, seeds and sealed values would leak hidden information.
        log.info(
            "game %s step %s resolved: %d roll(s), defaulted: %s%s",
            step.game_id,
            step.key,
            len(result.rolls),
            ", ".join(result.defaulted) or "none",
            "; game finished" if nxt is None else "",
            extra={
                "game": step.game_id,
                "step": step.key,
                "attempt": step.attempt,
                "defaulted": list(result.defaulted),
                "rolls": len(result.rolls),
                "finished": nxt is None,
            },
        )

    def _resolve(self, session: Session, game: Game, step: StepRow, now: datetime) -> Resolution:
        """Resolve ``step`` and store it, and the game's new state."""
        result = self.compute(session, game, step)
        self._store(session, game, step, result, now)
        game.state = queries.plugin(game).dump(result.outcome.state)
        session.add(game)
        return result

    def _quiet_run(
        self, session: Session, game: Game, nxt: StepRow | None, now: datetime
    ) -> tuple[list[tuple[StepRow, Resolution]], StepRow | None]:
        """Play the quiet steps from ``nxt`` on (``core.lifecycle.play_quietly``); they send nothing.

        Returns the steps played with their resolutions, and the step open after them."""
        settings = lifecycle.quiet_settings(game.options)
        plugin = queries.plugin(game)
        played: list[tuple[StepRow, Resolution]] = []
        while nxt is not None:
            declared = plugin.step(plugin.load(game.state))
            if declared is None or not lifecycle.play_quietly(declared.quiet, len(played), settings):
                break
            result = self._resolve(session, game, nxt, now)
            played.append((nxt, result))
            log.info("game %s step %s played quietly", nxt.game_id, nxt.key)
            nxt = None if result.outcome.finished else self.games.open_next(session, game)
        return played, nxt

    @staticmethod
    def _combined(step: StepRow, result: Resolution, quiet: list[tuple[StepRow, Resolution]]) -> list[Event]:
        """The report's events: the step's, then each quiet step's, titled when there are several."""
        if not quiet:
            return list(result.outcome.events)
        runs = [(step, result), *quiet]
        return [replace(e, text=f"{row.title}: {e.text}") for row, res in runs for e in res.outcome.events]

    def _store(self, session: Session, game: Game, step: StepRow, result: Resolution, now: datetime) -> None:
        for seat in result.defaulted:
            session.add(
                new_row(
                    OrderSet,
                    step_id=row_id(step),
                    seat=seat,
                    lines=result.orders[seat],
                    defaulted=True,
                    received_at=now,
                )
            )
        for position, roll in enumerate(result.rolls):
            session.add(new_row(RollRow, step_id=row_id(step), position=position, data=roll))
        step.state, step.closed_at, step.orders_digest = StepState.RESOLVED, now, result.digest
        step.revealed = not game.reveal_at_end  # open games show each seed with its results
        session.add(step)
        payload = resolved_payload(step, result.digest, result.rolls, result.entropy, result.defaulted)
        chainlog.append(session, step.game_id, "step-resolved", payload | result.dice, now)

    def _late(self, session: Session, game: Game, step: StepRow, result: Resolution) -> list[Seat]:
        """Count misses in a row; tell the GM who was late and who keeps missing. Returns the
        game's seats."""
        opened, seats = self.facts(session, game, step)
        misses = lifecycle.count_misses(opened, seats, policy(game), result.defaulted)
        rows = {seat.name: seat for seat in queries.seats(session, row_id(game))}
        for name, in_row in misses.in_row.items():
            rows[name].missed_in_row = in_row
            session.add(rows[name])
        if misses.late:
            flagged = [
                f"{name} ({rows[name].address}) has missed {misses.in_row[name]} steps in a row"
                for name in misses.flagged
            ]
            lines = [f"Late at {step.title}: {', '.join(misses.late)}; default orders applied.", *flagged]
            self.reports.gm(session, game, f"late list for {step.title}", lines)
        return list(rows.values())

    def finish(self, session: Session, game: Game, result: str, now: datetime) -> None:
        """End the game before its rules do (a draw, a concession): the open step is void."""
        step = queries.open_step(session, row_id(game))
        if step is not None:
            step.state, step.closed_at = StepState.ROLLED_BACK, now
            session.add(step)
        self._finish(session, game, result, now)

    def _finish(self, session: Session, game: Game, result: str, now: datetime) -> None:
        game.status, game.result, game.finished_at = GameStatus.FINISHED, result, now
        session.add(game)
        # The game is over: every seed may be checked now. One UPDATE: loading the rows would
        # read back every step's saved state (a long Flat Top game has hundreds), and the rows
        # this session holds are updated with it ("evaluate": they need no reading either).
        reveal = update(StepRow).where(col(StepRow.game_id) == game.id).values(revealed=True)
        session.execute(reveal, execution_options={"synchronize_session": "evaluate"})
        chainlog.append(session, row_id(game), "game-finished", {"result": result}, now)

    # -- deadlines -------------------------------------------------------------------

    @staticmethod
    def facts(session: Session, game: Game, step: StepRow) -> tuple[lifecycle.StepFacts, SeatMap]:
        """The open step and its seats as the lifecycle's plain values."""
        held = queries.current_orders(session, row_id(step))
        rows = queries.seats(session, row_id(game))
        seats = {
            seat.name: replace(
                facts,
                # Orders with refused lines wait for the seat's CONFIRM, as a WAIT would.
                waiting=seat.wait or (seat.name in held and held[seat.name].held_back),
                away=seat.away(step.deadline_at),
                missed_in_row=seat.missed_in_row,
            )
            for seat, facts in zip(rows, seat_facts(rows, step, held).values(), strict=True)
        }
        opened = lifecycle.StepFacts(
            step.key,
            tuple(step.owing),
            step.opened_at,
            step.deadline_at,
            step.early_at,
            tuple(step.reminders_sent),
        )
        return opened, seats

    def tick(self, session: Session, game: Game, watch: lifecycle.Watch) -> str:
        """Act on one running game at the injected now, with the moderator's own health as the
        interlock sees it (``watch``); returns what was done."""
        now = self.clock()
        if game.status is GameStatus.SETUP:
            return self._setup_tick(session, game, watch, now)
        step = queries.open_step(session, row_id(game))
        if game.status is not GameStatus.RUNNING or step is None:
            return "idle"
        opened, seats = self.facts(session, game, step)
        rules = policy(game, self.max_missed_share)
        if self._held_by_nobody(step, seats) and (early := lifecycle.early_from(opened, seats, rules, now)):
            step.early_at = early
            session.add(step)
            opened = replace(opened, early_at=early)
        decision = lifecycle.decide(opened, seats, rules, watch, now)
        if decision.action is lifecycle.Action.PAUSE:
            self.pause(session, game, decision.why)
            return "paused"
        if decision.action is lifecycle.Action.PROCESS:
            self.process(session, game, step)
            return f"processed ({decision.why})"
        if decision.action is lifecycle.Action.REMIND:
            self._remind(session, game, step, decision, now)
            return "reminded"
        return "idle"

    @staticmethod
    def _held_by_nobody(step: StepRow, seats: SeatMap) -> bool:
        """Whether the open step waits only on seats nobody plays, with no early time yet: no
        letter will start its early delay, so the tick does (a step only ejected seats owe, or
        one stuck so before seats without a player stopped holding steps open). A rolled-back
        step whose carried orders are all in waits for a letter or its deadline, as it always
        did: its players were told they may still replace them."""
        unplayed = [name for name in step.owing if name in seats and not seats[name].active]
        if step.early_at is not None or not unplayed:
            return False
        return step.attempt == 1 or len(unplayed) == len(step.owing)

    def _setup_tick(self, session: Session, game: Game, watch: lifecycle.Watch, now: datetime) -> str:
        """A set-up waiting for round-1 reveals keeps a deadline like any step's: reminders to the
        seats whose reveal is missing, the interlock at the deadline, and rolled when every
        awaited reveal is in or at the deadline (a missing one counts as withheld)."""
        setup = queries.setup_step(session, row_id(game))
        found = None if setup is None else setupdice.facts(session, setup)
        if setup is None or found is None:
            return "idle"  # seats still to join
        opened, seats = found
        if lifecycle.all_in(opened, seats):
            self.games.start(session, game)
            return "set-up rolled (every reveal is in)"
        decision = lifecycle.decide(opened, seats, policy(game, self.max_missed_share), watch, now)
        if decision.action is lifecycle.Action.PAUSE:
            self.pause(session, game, decision.why)
            return "paused"
        if decision.action is lifecycle.Action.PROCESS:
            self.games.start(session, game)
            return f"set-up rolled ({decision.why})"
        if decision.action is lifecycle.Action.REMIND:
            setup.reminders_sent = [*setup.reminders_sent, *decision.marks]
            session.add(setup)
            for seat in queries.seats(session, row_id(game)):
                if seat.name in decision.remind:
                    setupdice.remind(self.reports.postman, session, game, setup, seat, now=now)
            return "reminded"
        return "idle"

    def _remind(
        self, session: Session, game: Game, step: StepRow, decision: lifecycle.Decision, now: datetime
    ) -> None:
        step.reminders_sent = [*step.reminders_sent, *decision.marks]
        session.add(step)
        for seat in queries.seats(session, row_id(game)):
            if seat.name in decision.remind:
                self.reports.reminder(session, game, step, seat, now)

    # -- GM actions ---------------------------------------------------------------

    def pause(self, session: Session, game: Game, reason: str) -> None:
        game.status, game.pause_reason = GameStatus.PAUSED, reason
        session.add(game)
        chainlog.append(session, row_id(game), "gm-pause", {"reason": reason}, self.clock())
        self.reports.announce(session, game, "The game is paused", [reason])
        self.reports.gm(
            session, game, "game paused", [reason, "Send RESUME (or mailbot game resume) to go on."]
        )

    @staticmethod
    def resolved_steps(session: Session, game_id: int) -> list[StepRow]:
        query = select(StepRow).where(StepRow.game_id == game_id).order_by(col(StepRow.id))
        return list(session.exec(query))

    def roll_rows(self, session: Session, step: StepRow) -> Mapping[int, dict[str, Any]]:
        rows = session.exec(select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position)))
        return {row.position: row.data for row in rows}
