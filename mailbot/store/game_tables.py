# SPDX-License-Identifier: GPL-3.0-or-later
"""Tables of games played by mail: games, seats, steps, orders, rolls, reports, the event chain."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from mailbot.errors import StoreError
from mailbot.store.models import UTCDateTime, state_type
from mailbot.store.rows import new_row


class GameStatus(StrEnum):
    SETUP = "setup"  # waiting for every seat to be taken
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"


class SeatStatus(StrEnum):
    INVITED = "invited"
    ACTIVE = "active"
    RESIGNED = "resigned"
    EJECTED = "ejected"


class StepState(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"
    ROLLED_BACK = "rolled-back"


def row_id(row: Game | Seat | StepRow) -> int:
    """The id of a row that has been flushed (every row this code hands around has one)."""
    if row.id is None:
        raise StoreError(f"{type(row).__name__} has no id yet; flush first")
    return row.id


def _json() -> Any:
    return Field(default_factory=dict, sa_type=sa.JSON)


class Game(SQLModel, table=True):
    __tablename__ = "game"

    id: int | None = Field(default=None, primary_key=True)
    plugin: str = Field(max_length=64)  # registry name
    scenario: str = Field(max_length=200)
    title: str = Field(max_length=200)
    status: GameStatus = Field(default=GameStatus.SETUP, sa_type=state_type(GameStatus))
    deadline_spec: str = Field(max_length=200)
    timezone: str = Field(default="UTC", max_length=64)
    grace_seconds: int = 0
    early_seconds: int = 300  # wait this long after the last owing seat reported (a late correction)
    reminders: list[int] = Field(default_factory=list, sa_type=sa.JSON)  # seconds before the deadline
    late_limit: int = 2  # misses in a row before the GM is told
    vacation_days: int = 14  # the longest VACATION a player may announce
    gm_address: str = Field(max_length=320)
    gm_secret: str = Field(max_length=64)
    anonymous_press: bool = False
    observers_allowed: bool = True  # whether OBSERVE (and the GM's ``game observe``) may add readers
    # Whether anyone observes it now: a step's letters ask the observer table only then, so a
    # deadline over a thousand unobserved games costs no query each.
    observed: bool = False
    require_dkim: bool = False  # letters must carry a passing DKIM result for the sender's domain
    reveal_at_end: bool = True  # hidden-information games reveal dice seeds only at the end
    options: dict[str, Any] = _json()
    state: dict[str, Any] = _json()  # the plugin's dump of the current state
    result: str = Field(default="", max_length=500)
    pause_reason: str = Field(default="", max_length=500)
    created_at: datetime = Field(sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Seat(SQLModel, table=True):
    __tablename__ = "seat"
    __table_args__ = (sa.UniqueConstraint("game_id", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    name: str = Field(max_length=64)
    address: str = Field(max_length=320, index=True)
    secret: str = Field(max_length=64)
    invite_code: str = Field(max_length=64)
    status: SeatStatus = Field(default=SeatStatus.INVITED, sa_type=state_type(SeatStatus))
    timezone: str = Field(default="", max_length=64)  # empty: the game's zone
    wait: bool = False
    missed_in_row: int = 0
    vacation_from: datetime | None = Field(default=None, sa_type=UTCDateTime)
    vacation_to: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # When the present player took the seat after it had none (REPLACE of an ejected or resigned
    # seat): the step open then does not wait for him, the steps opened since do (``played``).
    duty_from: datetime | None = Field(default=None, sa_type=UTCDateTime)

    def played(self, opened_at: datetime) -> bool:
        """Whether a player owes this seat's input for a step opened at ``opened_at``.

        Nobody plays an ejected or resigned seat: it plays its default orders and never holds
        a step open. A seat handed to a new player after it had none owes again from the next
        step on: he may still send orders for the step open when he came, but it is not held
        for him.
        """
        return self.status is SeatStatus.ACTIVE and (self.duty_from is None or self.duty_from <= opened_at)

    def away(self, when: datetime) -> bool:
        """On announced vacation at ``when``: defaults apply, but nobody counts it as late."""
        return (
            self.vacation_from is not None
            and self.vacation_to is not None
            and (self.vacation_from <= when <= self.vacation_to)
        )


class StepRow(SQLModel, table=True):
    __tablename__ = "step"
    __table_args__ = (sa.UniqueConstraint("game_id", "key", "attempt"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    key: str = Field(max_length=64)
    attempt: int = 1  # a rolled-back step is opened again as the next attempt
    turn: int
    kind: str = Field(max_length=16)
    title: str = Field(max_length=200)
    owing: list[str] = Field(default_factory=list, sa_type=sa.JSON)
    seal_labels: list[str] = Field(default_factory=list, sa_type=sa.JSON)
    state: StepState = Field(default=StepState.OPEN, sa_type=state_type(StepState))
    opened_at: datetime = Field(sa_type=UTCDateTime)
    deadline_at: datetime = Field(sa_type=UTCDateTime)
    early_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    reminders_sent: list[str] = Field(default_factory=list, sa_type=sa.JSON)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    seed: str = Field(max_length=64)  # hex; secret until revealed
    commitment: str = Field(max_length=64)  # SHA-256 of the seed, published when the step opens
    revealed: bool = False
    orders_digest: str = Field(default="", max_length=64)
    snapshot: dict[str, Any] = _json()  # the state the step opened on (for rollback and preview)


class OrderSet(SQLModel, table=True):
    """One seat's orders for one step; a resubmission replaces the current set (kept, not current)."""

    __tablename__ = "order_set"

    id: int | None = Field(default=None, primary_key=True)
    step_id: int = Field(foreign_key="step.id", index=True)
    seat: str = Field(max_length=64)
    lines: list[str] = Field(default_factory=list, sa_type=sa.JSON)  # normalised
    # Sealed values: label -> {"value", "salt", "receipt"}; never shown to another seat before opening.
    sealed: dict[str, Any] = _json()
    current: bool = True
    defaulted: bool = False
    # hex of 32 random bytes salting this set's commitment in the event chain ("" for none)
    salt: str = Field(default="", max_length=64)
    inbound_id: int | None = Field(default=None, foreign_key="inbound.id")
    received_at: datetime = Field(sa_type=UTCDateTime)
    # Lines of the letter the game refused ("line: reason"): the set holds the step's early
    # processing back until the seat confirms it as it is (CONFIRM) or sends corrected orders.
    dropped: list[str] = Field(default_factory=list, sa_type=sa.JSON)
    confirmed: bool = False

    @property
    def held_back(self) -> bool:
        """Whether these orders wait for the seat's word before the step may run early."""
        return bool(self.dropped) and not self.confirmed

    def copied_to(self, step_id: int, *, salt: str = "") -> OrderSet:
        """The same orders (and sealed values) standing in another attempt of the step."""
        return new_row(
            OrderSet,
            step_id=step_id,
            seat=self.seat,
            lines=list(self.lines),
            sealed=dict(self.sealed),
            inbound_id=self.inbound_id,
            received_at=self.received_at,
            salt=salt,
            dropped=list(self.dropped),
            confirmed=self.confirmed,
        )


class RollRow(SQLModel, table=True):
    __tablename__ = "roll"

    id: int | None = Field(default=None, primary_key=True)
    step_id: int = Field(foreign_key="step.id", index=True)
    position: int
    data: dict[str, Any] = _json()  # Roll.as_dict(): label, sides, faces, modifiers, total, rule, counter


class Report(SQLModel, table=True):
    """What one seat (or the GM) was told at a step: kept for HISTORY and for substitutes."""

    __tablename__ = "report"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: str = Field(max_length=64)  # "" for the GM
    turn: int
    step_key: str = Field(max_length=64)
    subject: str = Field(max_length=998)
    text: str = Field(sa_type=sa.Text)
    html: str = Field(sa_type=sa.Text)
    chain_head: str = Field(max_length=64)
    created_at: datetime = Field(sa_type=UTCDateTime)
    salt: str = Field(default="", max_length=64)  # hex; salts the text's hash in the event chain
    map_svg: str = Field(default="", sa_type=sa.Text)  # the seat's map as sent (PNG), for the archive


class ChainRow(SQLModel, table=True):
    """The tamper-evident event log: each entry carries the hash of the one before."""

    __tablename__ = "chain"
    __table_args__ = (sa.UniqueConstraint("game_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    position: int
    kind: str = Field(max_length=64)
    payload: dict[str, Any] = _json()
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64)
    created_at: datetime = Field(sa_type=UTCDateTime)


class ServerChain(SQLModel, table=True):
    """A game's secret dice-seed chain (``mailbot.core.hashchain``): its root never leaves the
    database; each step attempt takes the next element, the anchor is public from the start."""

    __tablename__ = "server_chain"

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    root: str = Field(max_length=64)  # hex; secret for good (elements are revealed, never the root)
    length: int
    used: int = 0  # rounds handed out so far: the next step attempt is round used + 1
    # H^(i*STRIDE)(root) for i = 0, 1, ...: a round's element is then at most STRIDE hashes
    # away (``core.hashchain.element_from``), not up to ``length`` (secret like the root)
    checkpoints: list[str] = Field(default_factory=list, sa_type=sa.JSON)


class Observer(SQLModel, table=True):
    """An address that reads a game without playing it (OBSERVE, issue 33): it gets the public
    letters of each step and the press sent to ALL, never a seat's report; its address is shown
    to nobody but the GM."""

    __tablename__ = "observer"
    __table_args__ = (sa.UniqueConstraint("game_id", "address"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    address: str = Field(max_length=320, index=True)
    added_at: datetime = Field(sa_type=UTCDateTime)
    added_by: str = Field(default="mail", max_length=16)  # "mail" (OBSERVE) or "gm" (the command line)
