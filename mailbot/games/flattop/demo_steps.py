# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo players' surface battles, submarines and survivors (the surface-demo scenario).

:func:`answer_step` is asked first by the Flat Top demo script (:mod:`mailbot.games.flattop.demo`):
it answers the sub-steps of a surface battle on its own, and adds lines to the carrier admiral's
orders for an hour. Like that script it reads only the side's own letter (the text part of
``templates/report.txt.j2`` as mail brings it: wrapped at 72 columns, CRLF line ends) and writes
the syntax of :mod:`orders.surface`, :mod:`orders.subs` and :mod:`orders.fleet`.

A surface battle (seed 003, 19), step keys ``T<n>.surface<i>.<phase>``:

- ``engage``: at night ENGAGE: a cruiser admiral who finds enemy ships in his hex fights; by day
  AVOID: daylight belongs to the aircraft, and a force that fought at night makes off at dawn, as
  Mikawa did at Savo (there is a battle only if a side engages). At night an undamaged Japanese
  force puts its light cruisers and destroyers in the torpedo group (``POSITION Yubari
  TORPEDO``): their Long Lances count at night when the round's BHT is 7 or more (reference
  A.11.7), and a ship fires her torpedoes once, so a force already in action (a ship damaged, or
  a round of the last battle in the letter) keeps them on the guns. Every other ship takes the
  default group;
- ``bht``: the secret number, sealed (``SEAL BHT n``, :data:`BHT`): the Japanese pick 5, the
  Allies 4, so the round's BHT (the sum) is 9, past the torpedoes' 7 at night;
- ``gunnery``, ``torpedo``, ``breakthrough``: an empty block, so the flow's default allocation
  fires: each ship at the biggest enemy ship she may aim at (seed 003, 19: she never splits her
  fire), which concentrates the fire, as the script would. The letter that asks for the fire
  does not repeat the enemy's numbers (they came with the BHT letter), and a script that reads
  only the letter in hand could name them only by guessing; a refused FIRE line would leave the
  step unanswered.

An hour's orders (``T<n>.orders``) get extra lines:

- ``DEPTH TF<n> PERISCOPE`` and ``SUBATTACK TF<n>`` for each own submarine TF (every ship SS)
  whose hex holds a ships contact in the letter (``orders.subs``: it attacks "the enemy ships in
  its hex"); at periscope depth "the sub's attack is resolved first" (seed 003, 27.6) and it still
  sees the ships in its hex (27.3, condition two);
- ``ASW TF<n>`` for each own surface TF with a ship that may attack a sub (a gunnery ship, or a
  DD-class ship or PG with depth charges) in a hex where the letter shows a submarine (27.9);
- ``RESCUE TF<n>`` for each own TF with a ship that may pick up survivors (a CA, CAV, CL, DD, AP
  or APD: seed 003, Survivors) in a hex where the letter reports survivors in the water,
  friendly or enemy (each factor still carried at the end scores 2 VP, or 1 if the enemy's);
  never a TF with carriers (CV, CVL): a rescuing ship counts as anchored that hour and holds her
  TF, and carriers must stay free to turn into the wind (standard 6.10).

Pure: no I/O; the only inputs are the seat, the step key and kind, and the letter's text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mailbot.core.demo import orders

#: each side's secret BHT number (seed 003, 19: "1 through 6"): see the module docstring
BHT: Mapping[str, int] = {"allied": 4, "japanese": 5}
#: ship types that may pick up survivors (seed 003, Survivors; ``orders.fleet.RESCUERS``)
RESCUERS = frozenset({"CA", "CAV", "CL", "DD", "AP", "APD"})
#: ship types with guns or depth charges to attack a submarine (27.9; tables/ships.toml, submarines.toml)
ASW_TYPES = frozenset({"BB", "CA", "CAV", "CL", "DD", "APD", "PG"})
#: carriers: their TF does not stop to pick up survivors (see the module docstring)
CARRIERS = frozenset({"CV", "CVL"})
#: the Japanese night torpedo group (the Long Lance ships that are not the heavy guns)
TORPEDO_GROUP = frozenset({"CL", "DD"})

_SURVIVORS = re.compile(r"\d+ (?:enemy|friendly) survivor factor\(s\) in the water at (\S+)")
_TF = re.compile(r"TF(\d+) at (\S+), speed")
_SHIP = re.compile(r"(\S+) (.+?)(?: \((\d+)/\d+ hits\))?")
_CONTACT = re.compile(r"D\d+ \d{4} (\S+) ships condition \d by [^:]*: (.*)")
_ROUND = re.compile(r"Surface (?:gunnery|torpedo|breakthrough) round:")
_NIGHT = re.compile(r"game time D\d+ \d{4} \(night\)")


@dataclass(frozen=True)
class OwnShip:
    type: str
    name: str
    hits: int = 0


@dataclass(frozen=True)
class OwnTF:
    """One of the side's TFs as its letter lists it."""

    number: int
    hex: str
    ships: tuple[OwnShip, ...]

    @property
    def submarine(self) -> bool:
        return bool(self.ships) and all(s.type == "SS" for s in self.ships)

    def has(self, types: frozenset[str]) -> bool:
        return any(s.type in types for s in self.ships)


@dataclass(frozen=True)
class Contact:
    hex: str
    text: str  # what was seen, e.g. "TF: 1 submarine"


# --- reading the letter ----------------------------------------------------------------------------


def flat(text: str) -> str:
    """The letter as one line: mail wraps long lines at 72 columns, never inside a word."""
    return " ".join(text.split())


def own_block(seat: str, text: str) -> list[str]:
    """The lines of the side's own forces section (``--- allied (deception ...) ---``)."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(f"--- {seat} (")), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("--- ")), len(lines))
    return lines[start + 1 : end]


def logical_lines(lines: Sequence[str]) -> list[str]:
    """The lines of a forces section as written before the 72-column wrap: a wrapped line goes on
    indented deeper than where it began. Unindented lines are headings ("Contacts (...):") with
    their items under them, and a TF's ``ships:`` line is a line of its own."""
    out: list[tuple[int, str]] = []
    for line in lines:
        body = line.strip()
        indent = len(line) - len(line.lstrip())
        wrapped = bool(out) and 0 < out[-1][0] < indent and not body.startswith(("ships:", "planes:"))
        if wrapped and body:
            out[-1] = (out[-1][0], f"{out[-1][1]} {body}")
        elif body:
            out.append((indent, body))
    return [body for _, body in out]


def _ships(listed: str) -> tuple[OwnShip, ...]:
    ships = []
    for item in listed.split(", "):
        found = _SHIP.fullmatch(item.strip())
        if found is not None:
            ships.append(OwnShip(found[1], found[2], int(found[3] or 0)))
    return tuple(ships)


def own_tfs(seat: str, text: str) -> list[OwnTF]:
    """The side's TFs: number, hex and the ships listed under each (type, name, hits)."""
    tfs: list[OwnTF] = []
    current: tuple[int, str] | None = None
    for line in logical_lines(own_block(seat, text)):
        if (found := _TF.match(line)) is not None:
            current = (int(found[1]), found[2])
        elif current is not None and line.startswith("ships: "):
            tfs.append(OwnTF(current[0], current[1], _ships(line.removeprefix("ships: "))))
            current = None
    return tfs


def contacts(seat: str, text: str) -> list[Contact]:
    """The ships contacts the side's letter lists (the last few hours)."""
    lines = logical_lines(own_block(seat, text))
    return [Contact(m[1], m[2]) for line in lines if (m := _CONTACT.fullmatch(line)) is not None]


def survivor_hexes(text: str) -> set[str]:
    """Hexes where the letter reports survivors in the water (seen by own ships in the hex)."""
    return set(_SURVIVORS.findall(flat(text)))


def is_night(text: str) -> bool:
    return _NIGHT.search(flat(text)) is not None


# --- an hour's orders --------------------------------------------------------------------------------


def sub_orders(seat: str, text: str) -> list[str]:
    """DEPTH PERISCOPE and SUBATTACK for each submarine TF with a ships contact in its hex."""
    seen = {c.hex for c in contacts(seat, text)}
    lines: list[str] = []
    for tf in own_tfs(seat, text):
        if tf.submarine and tf.hex in seen:
            lines += [f"DEPTH TF{tf.number} PERISCOPE", f"SUBATTACK TF{tf.number}"]
    return lines


def asw_orders(seat: str, text: str) -> list[str]:
    """ASW for each surface TF that can attack a submarine the letter shows in its hex."""
    subs = {c.hex for c in contacts(seat, text) if "submarine" in c.text}
    tfs = own_tfs(seat, text)
    return [f"ASW TF{t.number}" for t in tfs if not t.submarine and t.has(ASW_TYPES) and t.hex in subs]


def rescue_orders(seat: str, text: str) -> list[str]:
    """RESCUE for each TF without carriers that may pick up survivors where the letter reports them."""
    wet = survivor_hexes(text)
    able = [tf for tf in own_tfs(seat, text) if tf.has(RESCUERS) and not tf.has(CARRIERS)]
    return [f"RESCUE TF{tf.number}" for tf in able if tf.hex in wet]


def extra_orders(seat: str, text: str) -> list[str]:
    """The lines this module adds to an hour's orders."""
    return [*sub_orders(seat, text), *asw_orders(seat, text), *rescue_orders(seat, text)]


# --- a surface battle --------------------------------------------------------------------------------


def positions(seat: str, text: str) -> list[str]:
    """POSITION lines for the engage step (see the module docstring): the Japanese torpedo group."""
    if seat != "japanese" or not is_night(text):
        return []
    seen = {c.hex for c in contacts(seat, text)}
    ships = [s for tf in own_tfs(seat, text) if tf.hex in seen and not tf.submarine for s in tf.ships]
    if any(s.hits for s in ships) or _ROUND.search(flat(text)):
        return []
    return [f"POSITION {s.name.replace(' ', '-')} TORPEDO" for s in ships if s.type in TORPEDO_GROUP]


def surface_answer(seat: str, step_key: str, letter_text: str) -> str:
    """The body of the answer to a surface sub-step ``T<n>.surface<i>.<phase>``."""
    phase = step_key.rsplit(".", 1)[-1]
    if phase == "bht":
        return f"SEAL BHT {BHT.get(seat, 3)}\n"
    if phase == "engage":
        if not is_night(letter_text):
            return orders(step_key, "AVOID")
        return orders(step_key, "ENGAGE", *positions(seat, letter_text))
    return orders(step_key)  # gunnery, torpedo, breakthrough: the default allocation fires


# --- the entry point -----------------------------------------------------------------------------------


def answer_step(seat: str, step_key: str, step_kind: str, letter_text: str) -> str | None:
    """The whole reply body for a surface sub-step; for an hour's orders (``T<n>.orders``) the
    lines to add to the carrier admiral's, one a line; None when there is nothing to say."""
    if ".surface" in step_key:
        return surface_answer(seat, step_key, letter_text)
    if step_key.endswith(".orders") and step_kind == "orders":
        return "\n".join(extra_orders(seat, letter_text)) or None
    return None
