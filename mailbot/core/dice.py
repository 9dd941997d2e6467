# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice that players can verify after the fact.

Seed 004 had players seal die-roll columns in numbered envelopes so that
nobody could fudge a roll once the moves were written down. mailbot keeps the
same promise with hashes: before a step the moderator publishes
``commitment(seed)``; every roll of the step is a pure function of the seed,
the digest of the orders accepted for the step, the roll's label and a
per-label counter. Once the seed is revealed anyone can check that it matches
the commitment and re-derive every roll, so the moderator could neither pick
the dice after reading the orders nor quietly re-roll (see :func:`verify_log`).
The players, not knowing the seed until afterwards, cannot steer the dice by
rewording their orders either, though every order changes every roll.

The seed is drawn at the edge with ``secrets.token_bytes(32)``; this module
never draws randomness itself.

The players add randomness of their own, so that a moderator who knows the
seed cannot grind it against predictable letters: every letter the moderator
accepts for a step (orders, a sealed value, a ``JOIN`` for the set-up, or a
bare ``NONCE <anything>`` line) is a *contribution*, logged in the game's
event chain (kind ``entropy``) as it arrives, after the step's commitment
went out. The contributions of a step, sorted, are mixed into the dice key,
so the dice depend on text the moderator could not know when he committed to
the seed. Sorted, not in chain order: the order letters happen to be read in
(which of two players' letters the mail server delivered first, which worker
read it) is not the players' choice, and a replay of the same letters must
roll the same dice.

Byte-exact specification (version 2: entropy of sorted contributions)
------------------------------------
Notation: ``||`` concatenates; ``u32(n)`` and ``u64(n)`` are ``n`` as 4- and
8-byte big-endian unsigned integers; ``s(x) = u32(len(utf8(x))) || utf8(x)``
is a length-prefixed UTF-8 string (the length counts bytes); ``hex()`` is
lower-case hexadecimal.

Commitment::

    commitment = hex(SHA-256(seed))

Orders digest (the lines are the plugins' normalised order lines, hashed byte
for byte as stored and archived; seats sorted by code point, which is the same
as sorting their UTF-8 bytes; a seat's lines keep the order the seat gave)::

    order_hash(line) = SHA-256(utf8(line))                     # 32 raw bytes
    orders_digest = hex(SHA-256( s("mailbot-orders-v1")
        || for each seat, sorted: s(seat) || u32(n) || order_hash(line_1) || ... || order_hash(line_n) ))

Player entropy (a step's contributions sorted by seat, then message_id, then nonce, by code point;
``message_id`` is the letter's Message-ID header as received, without its
angle brackets, ``""`` when it has none; ``nonce`` is the text after the first
``NONCE`` word of the letter, single-spaced, ``""`` when there is none)::

    contribution = s(seat) || s(message_id) || s(nonce)
    entropy = hex(SHA-256( s("mailbot-entropy-v2") || u32(n) || contribution_1 || ... || contribution_n ))
    key = HMAC-SHA256(key = seed, msg = s("mailbot-entropy-v2") || s(entropy))

The moderator's streams always use ``key`` (``n = 0`` when nobody wrote);
``DiceStream(seed, digest, step)`` without ``entropy`` keys the blocks with
the seed itself (the fixtures of the plugin tests).

Blocks (``step`` is the step key, e.g. ``"T3.orders"``; it is in the message
as well so that two steps with identical orders never repeat their dice even
if they share a seed; ``orders_digest`` enters as its 64-character hex text)::

    block(label, counter) = HMAC-SHA256(key = key,
        msg = s("mailbot-dice-v1") || s(step) || s(orders_digest) || s(label) || u64(counter))

Faces: each roll starts a fresh block at its label's current counter
(``Roll.counter``; every label starts at 0). The 32-byte block is read as
eight 4-byte big-endian unsigned integers ``x`` in order. With
``limit = 2**32 - (2**32 mod sides)`` a value ``x >= limit`` is rejected (this
keeps every face exactly equally likely); otherwise the face is
``x mod sides + 1``. When the block's values run out the next block
(counter + 1) is drawn. After the roll the label's counter is one past the
last block used; leftover values are discarded, so every roll begins on a
block boundary and can be checked alone. A label's rolls therefore depend
only on the earlier rolls of that same label, never on how often other labels
were rolled.

A roll asks for 1 to ``MAX_COUNT`` (1,000) dice of 1 to ``MAX_SIDES`` (2**32) sides; a
checker refuses a logged roll outside these bounds without deriving it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from mailbot.errors import GameError

#: the plug-in API of this module (docs/writing-a-game.md); the rest is the moderator's own
__all__ = [
    "Dice",
    "DiceStream",
    "FixedDice",
    "Roll",
    "parse_spec",
    "verify_log",
    "verify_roll",
]

ORDERS_TAG = "mailbot-orders-v1"
DICE_TAG = "mailbot-dice-v1"
ENTROPY_TAG = "mailbot-entropy-v2"
MAX_NONCE = 200  # characters of a NONCE line kept; more adds nothing
MAX_SIDES = 2**32  # faces come from 32-bit values
#: the most dice one roll may ask for: far above any rule's (a Flat Top CRT roll is 2d6), and
#: the bound ``verify.py`` holds a logged roll's count to before it re-derives the roll (its
#: ``rules.MAX_COUNT``): a hand-edited count of 10**9 kept it busy for hours
MAX_COUNT = 1_000
_CHUNKS = struct.Struct(">8I")  # a 32-byte block as eight big-endian 32-bit values
_NO_MODIFIERS: Mapping[str, int] = MappingProxyType({})
_SPEC = re.compile(r"^\s*(\d*)\s*d\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$", re.IGNORECASE)
#: the modifier name under which ``dice("x", "3d6+1")`` records its constant
SPEC_MODIFIER = "spec"


def _s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def commitment(seed: bytes) -> str:
    """SHA-256 hex of the seed: published before the dice are used, the seed itself after."""
    return hashlib.sha256(seed).hexdigest()


def order_hash(line: str) -> str:
    """SHA-256 hex of one normalised order line; lets a player find his own orders in a digest."""
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def order_digest(orders_by_seat: Mapping[str, Sequence[str]]) -> str:
    """The canonical digest of every order accepted for a step (module docstring).

    A seat present with no lines still counts (``u32(0)``): "sent nothing"
    and "not asked" are different facts.
    """
    h = hashlib.sha256(_s(ORDERS_TAG))
    for seat in sorted(orders_by_seat):
        lines = orders_by_seat[seat]
        h.update(_s(seat) + len(lines).to_bytes(4, "big"))
        for line in lines:
            h.update(hashlib.sha256(line.encode("utf-8")).digest())
    return h.hexdigest()


def player_entropy(contributions: Sequence[tuple[str, str, str]]) -> str:
    """The mixed entropy of a step's (seat, message_id, nonce) contributions, sorted (module docstring)."""
    h = hashlib.sha256(_s(ENTROPY_TAG) + len(contributions).to_bytes(4, "big"))
    for seat, message_id, nonce in sorted(contributions):
        h.update(_s(seat) + _s(message_id) + _s(nonce))
    return h.hexdigest()


def dice_key(seed: bytes, entropy: str | None) -> bytes:
    """The HMAC key of a step's blocks: the seed mixed with the players' entropy (module docstring)."""
    if entropy is None:
        return seed
    return hmac.new(seed, _s(ENTROPY_TAG) + _s(entropy), hashlib.sha256).digest()


@dataclass(frozen=True, slots=True)  # slots: a third cheaper to build, and rolls are many
class Roll:
    """One roll as logged: enough to re-derive it and to show it in a report."""

    step: str
    label: str
    sides: int
    count: int
    faces: tuple[int, ...]
    modifiers: Mapping[str, int]  # read-only; name -> value, e.g. {"weather": -1}
    total: int  # sum(faces) + sum(modifiers.values())
    rule: str  # the rule or table the roll fed, e.g. "7.3 search chart"
    counter: int  # the label's first block counter (FixedDice: position in its list)

    @property
    def text(self) -> str:
        """E.g. ``search: 2d6 3+5 +1 weather = 9 (7.3 search chart)``."""
        mods = "".join(f" {value:+d} {name}" for name, value in self.modifiers.items())
        faces = "+".join(str(face) for face in self.faces)
        rule = f" ({self.rule})" if self.rule else ""
        return f"{self.label}: {self.count}d{self.sides} {faces}{mods} = {self.total}{rule}"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form, e.g. for a hash-chain payload."""
        return {
            "step": self.step,
            "label": self.label,
            "sides": self.sides,
            "count": self.count,
            "faces": list(self.faces),
            "modifiers": dict(self.modifiers),
            "total": self.total,
            "rule": self.rule,
            "counter": self.counter,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Roll:
        return cls(
            step=str(data["step"]),
            label=str(data["label"]),
            sides=int(data["sides"]),
            count=int(data["count"]),
            faces=tuple(int(face) for face in data["faces"]),
            modifiers=MappingProxyType({str(k): int(v) for k, v in dict(data["modifiers"]).items()}),
            total=int(data["total"]),
            rule=str(data["rule"]),
            counter=int(data["counter"]),
        )


def _make_roll(
    step: str,
    label: str,
    sides: int,
    faces: tuple[int, ...],
    *,
    rule: str,
    modifiers: Mapping[str, int] | None,
    counter: int,
) -> Roll:
    mods = MappingProxyType(dict(modifiers)) if modifiers else _NO_MODIFIERS
    total = sum(faces) + sum(mods.values())
    return Roll(step, label, sides, len(faces), faces, mods, total, rule, counter)


def _check_request(label: str, sides: int, count: int) -> None:
    # A plugin asking for a d0 is a bug in the plugin, not bad player input.
    if not label:
        raise GameError("a roll needs a non-empty label")
    if not 1 <= sides <= MAX_SIDES:
        raise GameError(f"roll {label!r}: sides must be 1..2**32, not {sides}")
    if count < 1:
        raise GameError(f"roll {label!r}: count must be at least 1, not {count}")
    if count > MAX_COUNT:
        raise GameError(f"roll {label!r}: at most {MAX_COUNT} dice a roll, not {count}")


def _faces_from(
    keyed: hmac.HMAC, prefix: bytes, sides: int, count: int, counter: int
) -> tuple[tuple[int, ...], int]:
    """Faces for one roll starting at block ``counter``; returns them and the next counter."""
    limit = MAX_SIDES - MAX_SIDES % sides
    faces: list[int] = []
    while len(faces) < count:
        mac = keyed.copy()  # the keyed state is prepared once per stream: half the cost
        mac.update(prefix + counter.to_bytes(8, "big"))
        counter += 1
        for x in _CHUNKS.unpack(mac.digest()):
            if x < limit:
                faces.append(x % sides + 1)
                if len(faces) == count:
                    break
    return tuple(faces), counter


def _prefix(step: str, orders_digest: str, label: str) -> bytes:
    return _s(DICE_TAG) + _s(step) + _s(orders_digest) + _s(label)


class _DiceHelpers:
    """The conveniences of :class:`Dice`, written once on top of ``roll``."""

    def roll(
        self,
        label: str,
        sides: int,
        count: int = 1,
        *,
        rule: str = "",
        modifiers: Mapping[str, int] | None = None,
    ) -> Roll:
        raise NotImplementedError

    def d6(self, label: str, rule: str = "") -> Roll:
        return self.roll(label, 6, rule=rule)

    def d10(self, label: str, rule: str = "") -> Roll:
        return self.roll(label, 10, rule=rule)

    def dice(
        self, label: str, spec: str, *, rule: str = "", modifiers: Mapping[str, int] | None = None
    ) -> Roll:
        """Roll a spec such as ``"2d6"``, ``"d8"`` or ``"3d6+1"`` (constant kept as modifier ``spec``)."""
        count, sides, constant = parse_spec(spec)
        mods = dict(modifiers or {})
        if constant:
            if SPEC_MODIFIER in mods:
                raise GameError(f"roll {label!r}: modifier name {SPEC_MODIFIER!r} is taken by the spec")
            mods[SPEC_MODIFIER] = constant
        return self.roll(label, sides, count, rule=rule, modifiers=mods)


def parse_spec(spec: str) -> tuple[int, int, int]:
    """``"3d6+1"`` -> ``(3, 6, 1)``; a malformed spec is a plugin or table bug: GameError."""
    match = _SPEC.match(spec)
    if match is None:
        raise GameError(f"not a dice spec: {spec!r} (expected e.g. '2d6', 'd8', '3d6+1')")
    count = int(match[1]) if match[1] else 1
    constant = int(match[4]) if match[4] else 0
    return count, int(match[2]), -constant if match[3] == "-" else constant


class Dice(Protocol):
    """What game plugins receive: every roll is labelled and logged."""

    def roll(
        self,
        label: str,
        sides: int,
        count: int = 1,
        *,
        rule: str = "",
        modifiers: Mapping[str, int] | None = None,
    ) -> Roll: ...

    def d6(self, label: str, rule: str = "") -> Roll: ...

    def d10(self, label: str, rule: str = "") -> Roll: ...

    def dice(
        self, label: str, spec: str, *, rule: str = "", modifiers: Mapping[str, int] | None = None
    ) -> Roll: ...


class DiceStream(_DiceHelpers):
    """The verifiable dice of one step (module docstring); ``log`` holds every roll in order."""

    def __init__(self, seed: bytes, orders_digest: str, step: str, entropy: str | None = None) -> None:
        self._seed = seed
        self._keyed = hmac.new(dice_key(seed, entropy), digestmod=hashlib.sha256)
        self.orders_digest = orders_digest
        self.step = step
        self.entropy = entropy
        self.log: list[Roll] = []
        self._counters: dict[str, int] = {}
        self._prefixes: dict[str, bytes] = {}

    def __repr__(self) -> str:
        # Never show the seed: a stream may be printed long before the seed is revealed.
        shown = commitment(self._seed)[:16]
        return f"DiceStream(step={self.step!r}, commitment={shown}..., rolls={len(self.log)})"

    def roll(
        self,
        label: str,
        sides: int,
        count: int = 1,
        *,
        rule: str = "",
        modifiers: Mapping[str, int] | None = None,
    ) -> Roll:
        _check_request(label, sides, count)
        prefix = self._prefixes.get(label)
        if prefix is None:
            prefix = self._prefixes[label] = _prefix(self.step, self.orders_digest, label)
        start = self._counters.get(label, 0)
        faces, self._counters[label] = _faces_from(self._keyed, prefix, sides, count, start)
        result = _make_roll(self.step, label, sides, faces, rule=rule, modifiers=modifiers, counter=start)
        self.log.append(result)
        return result


def _rederive(
    seed: bytes, orders_digest: str, roll: Roll, entropy: str | None = None
) -> tuple[tuple[int, ...], int] | None:
    if not roll.label or not 1 <= roll.sides <= MAX_SIDES or roll.count < 1 or roll.counter < 0:
        return None
    keyed = hmac.new(dice_key(seed, entropy), digestmod=hashlib.sha256)
    return _faces_from(
        keyed, _prefix(roll.step, orders_digest, roll.label), roll.sides, roll.count, roll.counter
    )


def _verified_next(seed: bytes, orders_digest: str, roll: Roll, entropy: str | None) -> int | None:
    """The label's next counter if the roll checks out, else None."""
    derived = _rederive(seed, orders_digest, roll, entropy)
    if derived is None or derived[0] != roll.faces:
        return None
    return derived[1] if roll.total == sum(roll.faces) + sum(roll.modifiers.values()) else None


def verify_roll(seed: bytes, orders_digest: str, roll: Roll, entropy: str | None = None) -> bool:
    """True if the roll's faces come from the seed and its total adds up."""
    return _verified_next(seed, orders_digest, roll, entropy) is not None


def verify_log(
    seed: bytes, orders_digest: str, rolls: Iterable[Roll], entropy: str | None = None
) -> int | None:
    """Index of the first bad roll of one step's log, or None if all is well.

    Besides each roll alone this checks that every label's rolls are
    contiguous from counter 0: a gap means a roll was made and hidden (a
    quiet re-roll), an overlap means a roll was reused.
    """
    expected: dict[str, int] = {}
    for index, roll in enumerate(rolls):
        following = _verified_next(seed, orders_digest, roll, entropy)
        if following is None or roll.counter != expected.get(roll.label, 0):
            return index
        expected[roll.label] = following
    return None


class FixedDice(_DiceHelpers):
    """Replays given faces, for tests of worked examples.

    Faces listed under a label in ``by_label`` serve that label; every other
    label takes faces from ``faces`` in sequence. Running out, or a face that
    does not fit the die, raises GameError naming the roll, so a conformance
    test fails where the example and the code part ways.
    """

    def __init__(
        self,
        faces: Iterable[int] = (),
        *,
        by_label: Mapping[str, Iterable[int]] | None = None,
        step: str = "fixed",
    ) -> None:
        self.step = step
        self.log: list[Roll] = []
        self._sequence = tuple(faces)
        self._by_label = {label: tuple(values) for label, values in (by_label or {}).items()}
        self._used: dict[str | None, int] = {}

    def roll(
        self,
        label: str,
        sides: int,
        count: int = 1,
        *,
        rule: str = "",
        modifiers: Mapping[str, int] | None = None,
    ) -> Roll:
        _check_request(label, sides, count)
        key = label if label in self._by_label else None
        source = self._by_label[label] if key is not None else self._sequence
        start = self._used.get(key, 0)
        where = f"the faces for {label!r}" if key is not None else "the shared sequence"
        if start + count > len(source):
            raise GameError(
                f"FixedDice exhausted: roll {label!r} ({count}d{sides}, rule {rule!r}) needs {count} "
                f"face(s) but {where} has {len(source) - start} left of {len(source)}"
            )
        faces = source[start : start + count]
        for face in faces:
            if not 1 <= face <= sides:
                raise GameError(f"FixedDice: face {face} from {where} does not fit a d{sides} ({label!r})")
        self._used[key] = start + count
        result = _make_roll(self.step, label, sides, faces, rule=rule, modifiers=modifiers, counter=start)
        self.log.append(result)
        return result

    def leftover(self) -> dict[str, tuple[int, ...]]:
        """Faces not used yet, by label; ``"*"`` is the shared sequence. Empty when all were used."""
        left = {"*": self._sequence[self._used.get(None, 0) :]}
        left |= {label: values[self._used.get(label, 0) :] for label, values in self._by_label.items()}
        return {label: values for label, values in left.items() if values}
