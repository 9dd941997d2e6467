# SPDX-License-Identifier: GPL-3.0-or-later
"""Task-force orders a scenario needs (reference A.5.1, D.3 TFORG / ANCHOR / UNLOAD): reading
and checking them against the side's own TFs. Their effect is :mod:`mailbot.games.flattop.fleet`.

    SPLIT TF1 Astoria Hammann AS TF5   these ships leave TF1 as a new TF5 (it holds this turn)
    MERGE TF5 INTO TF1                 two TFs in one hex become one
    ANCHOR TF7                         every ship anchors (a partial-land hex or a base's hex)
    WEIGH TF7                          the TF weighs anchor (it may move again next turn)
    UNLOAD TF7                         its anchored transports unload this turn (the scenario's
                                       unloading hexes; reference A.13: an AP unloads 8 turns)
    RESCUE TF3                         its ships pick up survivors in their hex (seed 003)
    TOW Hammann Astoria                Hammann takes Astoria in tow (same TF; seed 003, Towing)
    CASTOFF Hammann                    the tow is cast off
    BOMBARD TF9                        shell the enemy base in its hex after movement (A.11.7)
    OFFLOAD Astoria TO Hammann         a survivor factor from a cripple to a ship of her TF
    DISEMBARK TF3                      its survivors go ashore at the friendly base in its hex
    LOAD TF7                           its transports load a turn's cargo at a friendly base
    SCUTTLE Astoria                    she is scuttled at the start of TF movement; the enemy
                                       scores her as sunk (reference A.5.1, standard 12.9)

Ship names are written as in the side's own report, spaces as hyphens. Refusals speak only of
the side's own units, so they reveal nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from mailbot.core.game import ProblemKind
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.orders.checks import OrderError, Own, illegal
from mailbot.games.flattop.orders.types import (
    Anchor,
    Bombard,
    Disembark,
    LoadCargo,
    Merge,
    Offload,
    Rescue,
    Scuttle,
    Split,
    Tow,
    Unload,
)
from mailbot.games.flattop.units import ShipType, Side, TaskForce

#: reference A.5.1 (standard 4.1): the most ships in one TF, and plane-carriers only in TFs 1-9
MAX_SHIPS = {Side.ALLIED: 15, Side.JAPANESE: 10}
CARRIER_TFS = range(1, 10)
TRANSPORTS = (ShipType.AP, ShipType.APD)
BOMBARDERS = (ShipType.CAV, ShipType.CA, ShipType.CL, ShipType.DD, ShipType.APD)
RESCUERS = (ShipType.CA, ShipType.CAV, ShipType.CL, ShipType.DD, ShipType.AP, ShipType.APD)


def _tf_word(word: str) -> int:
    if not (word.startswith("TF") and word[2:].isdigit()):
        raise OrderError(ProblemKind.INVALID, f"{word!r} is not a TF like TF3")
    return int(word[2:])


def _name_key(name: str) -> str:
    return name.upper().replace(" ", "-")


def read_split(own: Own, words: Sequence[str]) -> Split:
    if len(words) < 4 or words[-2] != "AS":
        raise OrderError(ProblemKind.INVALID, "SPLIT reads SPLIT <TF> <ship> [<ship> ...] AS <new TF>")
    tf = own.tf(_tf_word(words[0]))
    new = _tf_word(words[-1])
    names = {_name_key(s.name): s.name for s in tf.afloat}
    wanted = list(dict.fromkeys(words[1:-2]))
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise illegal(f"TF{tf.number} has no ship {unknown[0]} afloat")
    if len(wanted) == len(tf.afloat):
        raise illegal(f"SPLIT must leave at least one ship in TF{tf.number}")
    if new in own.tfs:
        raise illegal(f"you have a TF{new} already")
    moving = [s for s in tf.afloat if _name_key(s.name) in wanted]
    if any(s.type.carries_planes for s in moving) and new not in CARRIER_TFS:
        raise illegal(f"plane-carrying ships go only in TFs 1-9 (reference A.5.1), not TF{new}")
    if not 1 <= new <= 99:
        raise illegal(f"TF{new}: TF numbers run 1-99")
    return Split(tf.number, tuple(names[w] for w in wanted), new)


def read_merge(own: Own, words: Sequence[str]) -> Merge:
    if len(words) != 3 or words[1] != "INTO":
        raise OrderError(ProblemKind.INVALID, "MERGE reads MERGE <TF> INTO <TF>")
    tf, into = own.tf(_tf_word(words[0])), own.tf(_tf_word(words[2]))
    if tf.number == into.number:
        raise illegal("a TF cannot merge into itself")
    if tf.hex != into.hex:
        raise illegal(f"TF{tf.number} and TF{into.number} are not in one hex")
    if len(tf.afloat) + len(into.afloat) > MAX_SHIPS[own.side]:
        raise illegal(f"a {own.side.value} TF holds at most {MAX_SHIPS[own.side]} ships (reference A.5.1)")
    if any(s.type.carries_planes for s in tf.afloat) and into.number not in CARRIER_TFS:
        raise illegal(f"plane-carrying ships go only in TFs 1-9 (reference A.5.1), not TF{into.number}")
    return Merge(tf.number, into.number)


def read_anchor(own: Own, words: Sequence[str], *, weigh: bool) -> Anchor:
    word = "WEIGH" if weigh else "ANCHOR"
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, f"{word} reads {word} <TF>")
    tf = own.tf(_tf_word(words[0]))
    if not weigh and not anchorage(own, tf):
        where = own.scenario.map.hex_id(tf.hex)
        raise illegal(f"TF{tf.number} at {where} is in open sea: anchor in a coastal hex or at a base")
    return Anchor(tf.number, not weigh)


def anchorage(own: Own, tf: TaskForce) -> bool:
    """Design default: ships anchor in a partial-land hex or a base's hex (standard 12.7)."""
    if own.scenario.map.terrain_of(tf.hex) is Terrain.PARTIAL:
        return True
    return any(b.hex == tf.hex for b in own.scenario.bases)


def read_unload(own: Own, words: Sequence[str]) -> Unload:
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "UNLOAD reads UNLOAD <TF>")
    tf = own.tf(_tf_word(words[0]))
    if not any(s.type in TRANSPORTS for s in tf.afloat):
        raise illegal(f"TF{tf.number} has no AP or APD to unload")
    if tf.hex not in own.scenario.unloading:
        where = own.scenario.map.hex_id(tf.hex)
        raise illegal(f"{where} is not one of this scenario's unloading hexes")
    return Unload(tf.number)


def read_rescue(own: Own, words: Sequence[str]) -> Rescue:
    """``RESCUE TF3``: seed 003, Survivors ("Only CA's, CAV's, CL's, DD's and empty AP/APD's can
    pick up survivors"); whether any are in the hex is the referee's to say, not the parser's."""
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "RESCUE reads RESCUE <TF>")
    tf = own.tf(_tf_word(words[0]))
    if not any(s.type in RESCUERS for s in tf.afloat):
        raise illegal(f"TF{tf.number} has no ship that may pick up survivors (CA, CAV, CL, DD, AP, APD)")
    return Rescue(tf.number)


def _own_ship(own: Own, word: str) -> tuple[TaskForce, str]:
    for tf in own.tfs.values():
        for ship in tf.afloat:
            if _name_key(ship.name) == word:
                return tf, ship.name
    raise illegal(f"you have no ship {word} afloat")


def read_tow(own: Own, words: Sequence[str]) -> Tow:
    """``TOW <tower> <towed>`` (seed 003, Towing; who may tow whom is checked when the tow is taken
    up, with the ships as they are then: ``map.towing.may_tow``)."""
    if len(words) != 2:
        raise OrderError(ProblemKind.INVALID, "TOW reads TOW <towing ship> <towed ship> (ships of one TF)")
    (tf, tower), (other, towed) = _own_ship(own, words[0]), _own_ship(own, words[1])
    if tf.number != other.number:
        raise illegal(f"{tower} and {towed} are not in one TF")
    if tower == towed:
        raise illegal("a ship cannot tow herself")
    return Tow(tower, towed)


def read_castoff(own: Own, words: Sequence[str]) -> Tow:
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "CASTOFF reads CASTOFF <towing ship>")
    return Tow(_own_ship(own, words[0])[1], None)


def read_bombard(own: Own, words: Sequence[str]) -> Bombard:
    """``BOMBARD TF9``: whether an enemy base is in its hex after movement is the referee's to say."""
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "BOMBARD reads BOMBARD <TF>")
    tf = own.tf(_tf_word(words[0]))
    if not any(s.type in BOMBARDERS and s.gunnery > 0 for s in tf.afloat):
        raise illegal(f"TF{tf.number} has no CAV, CA, CL or DD with guns to bombard with")
    return Bombard(tf.number)


def read_offload(own: Own, words: Sequence[str]) -> Offload:
    """``OFFLOAD <cripple> TO <ship>``: one survivor factor from a crippled ship to another ship of
    her TF (seed 003, Survivors); the survivors aboard her are rolled at her first offload."""
    if len(words) != 3 or words[1] != "TO":
        raise OrderError(ProblemKind.INVALID, "OFFLOAD reads OFFLOAD <crippled ship> TO <ship of her TF>")
    (tf, cripple), (other, rescuer) = _own_ship(own, words[0]), _own_ship(own, words[2])
    if tf.number != other.number:
        raise illegal(f"{cripple} and {rescuer} are not in one TF")
    return Offload(cripple, rescuer)


def read_disembark(own: Own, words: Sequence[str]) -> Disembark:
    """``DISEMBARK TF3``: its survivors go ashore at the friendly base in its hex (seed 003)."""
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "DISEMBARK reads DISEMBARK <TF>")
    tf = own.tf(_tf_word(words[0]))
    if not any(b.hex == tf.hex for b in own.bases.values()):
        raise illegal(f"TF{tf.number} is not at one of your bases")
    return Disembark(tf.number)


def read_load(own: Own, words: Sequence[str]) -> LoadCargo:
    """``LOAD TF7``: its transports that have unloaded take cargo aboard again, a turn's share an
    hour, at a friendly base in its hex (they anchor to do it)."""
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "LOAD reads LOAD <TF>")
    tf = own.tf(_tf_word(words[0]))
    if not any(s.type in TRANSPORTS for s in tf.afloat):
        raise illegal(f"TF{tf.number} has no AP or APD to load")
    if not any(b.hex == tf.hex for b in own.bases.values()):
        raise illegal(f"TF{tf.number} is not at one of your bases")
    return LoadCargo(tf.number)


def read_scuttle(own: Own, words: Sequence[str]) -> Scuttle:
    """``SCUTTLE <ship>``: reference A.5.1 (standard 12.9), any ship of the side afloat."""
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "SCUTTLE reads SCUTTLE <ship>")
    tf, name = _own_ship(own, words[0])
    return Scuttle(tf.number, name)
