# SPDX-License-Identifier: GPL-3.0-or-later
"""Air formations joining in flight (seed 003, 7 "General Rule").

Seed 003, 7 lets an AF join another along its path: a non-searching armed AF
joins a searching strike at "a specific rendezvous hex" and "conform[s] to that
of the searcher for the remainder of the move", and a searcher may "join a
specific friendly AF" it finds attacking a TF. Joined, they are one AF: its
fighters are escorts ("a fighter in an AF with bombers is an escort", reference
A.6), which is the point of sending fighters after a strike. The same holds for
a rendezvous with a non-searching AF (a strike already in flight, or one
launched in the same letter): non-search movement is planned in advance, so
the meeting is as certain as the two paths (a design default: the seed's
example names a searcher only because only its path is not known beforehand).

The joined AF keeps the leader's number, origin and orders for the rest of the
turn. Range (standard 8.5.5) is counted from the earlier take-off and the larger
range spent, so no plane outflies its own range (a design default: one AF box
counts one range on the Air Record Sheet). The follower's earlier flight this
turn is relabelled with the leader's number: an interceptor that sees it pass
meets the AF it is now part of.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.hour.turn import Turn, own_af, put
from mailbot.games.flattop.units import AirFormation, Side

RULE = "seed 003, 7"


def merge_into(turn: Turn, side: Side, follower: int, leader: int) -> AirFormation | None:
    """Put AF ``follower`` into AF ``leader`` where both are aloft in one hex; the joined AF, or
    None (nothing changes) when they are not together."""
    joining, host = own_af(turn, side, follower), own_af(turn, side, leader)
    if joining is None or host is None or joining.hex != host.hex or follower == leader:
        return None
    altitude = host.stacks[0].altitude  # escorts fly at their bombers' altitude (reference A.6)
    joined = replace(
        host,
        stacks=(*host.stacks, *(replace(s, altitude=altitude) for s in joining.stacks)),
        takeoff_turn=min(host.takeoff_turn, joining.takeoff_turn),
        rf_spent=max(host.rf_spent, joining.rf_spent),
    )
    put(turn, host, joined)
    turn.state = replace(turn.state, air=tuple(a for a in turn.state.air if a is not joining))
    _relabel(turn, side, follower, leader)
    return joined


def _relabel(turn: Turn, side: Side, follower: int, leader: int) -> None:
    """The follower's flights, strike and sweep are now the leader's (declared once, per AF)."""
    turn.flights = [
        replace(f, number=leader) if (f.side, f.number) == (side, follower) else f for f in turn.flights
    ]
    turn.strikes = [s for s in turn.strikes if (s[0], s[1]) != (side, follower)]
    turn.sweeps = [s for s in turn.sweeps if s != (side, follower)]
