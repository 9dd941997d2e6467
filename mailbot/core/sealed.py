# SPDX-License-Identifier: GPL-3.0-or-later
"""Sealed secrets: values each seat commits to before anyone sees the others'.

Seed 004 sealed die-roll columns in envelopes; Flat Top's surface combat
(seed 003, 19) has both sides send a BHT number that is revealed only when
both are in. mailbot holds the values and gives each seat a receipt at once,
so that after the opening a player can check that the moderator revealed
exactly what he sent::

    receipt = hex(SHA-256(utf8(value) || salt))

``salt`` is 32 random bytes drawn at the edge (``secrets.token_bytes(32)``)
and revealed with the value at the opening, as lower-case hex. The salt has a
fixed length, so the concatenation cannot be split two ways; its randomness
keeps a small value (a number 1-6) from being guessed from the receipt.

A :class:`SealBox` is immutable: every change returns a new box. A ``put``
the box cannot take (after opening, a seat that does not seal in this step,
an unknown label) is returned as a :class:`Refusal`, because it is an
ordinary answer to a player's letter, not an error. Opening a box while seats
still owe values without saying the deadline has passed is a moderator bug,
and raises :class:`~mailbot.errors.GameError`: revealing early would leak
one side's secret to a side that has not sealed yet.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError

SALT_BYTES = 32


def seal(value: str, salt: bytes) -> str:
    """The receipt for a value: SHA-256 hex of its UTF-8 bytes followed by the salt."""
    return hashlib.sha256(value.encode("utf-8") + salt).hexdigest()


def check_receipt(value: str, salt_hex: str, receipt: str) -> bool:
    """True if the revealed value and salt give the receipt; malformed hex is simply False."""
    try:
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        return False
    return hmac.compare_digest(seal(value, salt), receipt.strip().lower())


@dataclass(frozen=True)
class Sealed:
    """One seat's value for one label; ``defaulted`` when the seat sent nothing by the deadline."""

    # Kept out of repr so a logged box or a traceback cannot leak a secret before the opening.
    value: str = field(repr=False)
    salt: bytes = field(repr=False)
    receipt: str
    defaulted: bool = False

    @property
    def salt_hex(self) -> str:
        return self.salt.hex()


@dataclass(frozen=True)
class Receipt:
    """What a seat is told after sealing: the receipt and whether an earlier value was replaced."""

    seat: str
    label: str
    receipt: str
    replaced: bool = False


class RefusalKind(StrEnum):
    OPENED = "opened"  # too late: the values are already revealed
    NOT_SEALING = "not-sealing"  # this seat owes no sealed value in this step
    UNKNOWN_LABEL = "unknown-label"  # the step seals other things


@dataclass(frozen=True)
class Refusal:
    seat: str
    label: str
    kind: RefusalKind
    reason: str


@dataclass(frozen=True)
class Opening:
    """The revealed values: ``values[seat][label]``; ``box`` is the box as opened (it refuses puts)."""

    box: SealBox
    values: Mapping[str, Mapping[str, Sealed]]

    @property
    def defaulted(self) -> frozenset[str]:
        """Seats that sent at least one value late or never."""
        return frozenset(
            seat for seat, sealed in self.values.items() if any(s.defaulted for s in sealed.values())
        )

    def value(self, seat: str, label: str) -> str:
        return self.values[seat][label].value


def _frozen(entries: Mapping[tuple[str, str], Sealed]) -> Mapping[tuple[str, str], Sealed]:
    return MappingProxyType(dict(entries))


@dataclass(frozen=True)
class SealBox:
    """The sealed values of one step: every seat in ``seats`` seals every label in ``labels``."""

    step: str
    seats: tuple[str, ...]
    labels: tuple[str, ...]
    entries: Mapping[tuple[str, str], Sealed] = field(default_factory=lambda: _frozen({}))
    opened: bool = False

    @classmethod
    def new(cls, step: str, seats: Iterable[str], labels: Iterable[str]) -> SealBox:
        seat_list, label_list = tuple(sorted(set(seats))), tuple(dict.fromkeys(labels))
        if not seat_list or not label_list:
            raise GameError(f"seal box for step {step!r} needs at least one seat and one label")
        return cls(step, seat_list, label_list)

    def _label(self, label: str) -> str | None:
        # Lenient in what is accepted: "SEAL bht 4" matches the label "BHT".
        wanted = label.strip().casefold()
        return next((known for known in self.labels if known.casefold() == wanted), None)

    def _refusal(self, seat: str, label: str) -> Refusal | None:
        if self.opened:
            return Refusal(seat, label, RefusalKind.OPENED, f"the sealed values of {self.step} are open")
        if seat not in self.seats:
            return Refusal(seat, label, RefusalKind.NOT_SEALING, f"{seat} seals nothing in {self.step}")
        if self._label(label) is None:
            known = ", ".join(self.labels)
            return Refusal(seat, label, RefusalKind.UNKNOWN_LABEL, f"{label!r} is not sealed here ({known})")
        return None

    def put(self, seat: str, label: str, value: str, salt: bytes) -> tuple[SealBox, Receipt | Refusal]:
        """Seal or replace a value; a refused put returns this very box unchanged."""
        refusal = self._refusal(seat, label)
        if refusal is not None:
            return self, refusal
        canonical = self._label(label) or label
        key = (seat, canonical)
        sealed = Sealed(value, salt, seal(value, salt))
        entries = {**self.entries, key: sealed}
        receipt = Receipt(seat, canonical, sealed.receipt, replaced=key in self.entries)
        return replace(self, entries=_frozen(entries)), receipt

    def owing(self) -> tuple[tuple[str, str], ...]:
        """(seat, label) pairs still missing, in seat then label order."""
        return tuple(
            (seat, label) for seat in self.seats for label in self.labels if (seat, label) not in self.entries
        )

    def is_complete(self) -> bool:
        return not self.owing()

    def receipt(self, seat: str, label: str) -> str | None:
        sealed = self.entries.get((seat, self._label(label) or label))
        return sealed.receipt if sealed else None

    def open(self, defaults: Mapping[str, str], *, deadline_passed: bool = False) -> Opening:
        """Reveal every value; silent seats get ``defaults[label]``, marked ``defaulted``.

        Opens only when every seat has sealed, or when the caller says the
        deadline has passed. Opening an open box again gives the same values.
        """
        owing = self.owing()
        if owing and not self.opened and not deadline_passed:
            missing = ", ".join(f"{seat}/{label}" for seat, label in owing)
            raise GameError(f"seal box {self.step} opened before the deadline while owing {missing}")
        entries = dict(self.entries)
        for seat, label in owing:
            if label not in defaults:
                raise GameError(f"seal box {self.step}: no default for label {label!r}")
            # No salt and no receipt: nothing was sealed, the default is public rule text.
            entries[seat, label] = Sealed(defaults[label], b"", "", defaulted=True)
        box = replace(self, entries=_frozen(entries), opened=True)
        values = {
            seat: MappingProxyType({label: entries[seat, label] for label in self.labels})
            for seat in self.seats
        }
        return Opening(box, MappingProxyType(values))

    def dump(self) -> dict[str, Any]:
        """A JSON-serialisable form for the store (it holds secrets: never show it to a seat)."""
        return {
            "step": self.step,
            "seats": list(self.seats),
            "labels": list(self.labels),
            "opened": self.opened,
            "entries": [
                {"seat": seat, "label": label, "value": s.value, "salt": s.salt_hex, "defaulted": s.defaulted}
                for (seat, label), s in sorted(self.entries.items())
            ],
        }

    @classmethod
    def load(cls, data: Mapping[str, Any]) -> SealBox:
        """The inverse of :meth:`dump`; receipts are recomputed, never trusted from storage."""
        entries: dict[tuple[str, str], Sealed] = {}
        for item in data["entries"]:
            salt = bytes.fromhex(item["salt"])
            receipt = "" if item["defaulted"] else seal(item["value"], salt)
            entries[item["seat"], item["label"]] = Sealed(item["value"], salt, receipt, item["defaulted"])
        seats, labels = tuple(data["seats"]), tuple(data["labels"])
        return cls(data["step"], seats, labels, _frozen(entries), bool(data["opened"]))
