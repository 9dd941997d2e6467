# SPDX-License-Identifier: GPL-3.0-or-later
"""Launch into the wind (standard 6.10, reference A.4): "a CV or CVL must move one hex into the
wind in any turn in which the Air Factors taking off and landing together exceed its Minimum LF".

Before TF movement the referee counts, for each TF with carriers, the factors its side launches
from it this turn and the factors of the AFs ordered to land on it (LAND, or RETURN after a
flight: the landings planned, since the move comes first). If they exceed the carriers' summed
Minimum LF and this turn's plotted leg takes no step into the wind, the leg is replaced by one
hex into the wind (the wind marker of the TF's section points where clouds drift, so "into the
wind" is the opposite way) and the owner is told; later legs are kept as plotted. Where that hex
is barred (land, reef, off the board) the TF keeps its plot. The order check predicts the turn
from the letter's launches (``orders.checks.into_the_wind``) so a new AF's path starts from the
right hex.

The game option ``launch_wind = variant`` plays reference A.4's [RW] variant instead: "if more
than the minimum LF is used, the ship may move only 0 or 1 hex, and that hex must be into the
wind". A plot that holds or moves just that hex stands; one that starts into the wind is cut to
that hex; any other holds (0 hexes: a design default, ``orders.checks.into_the_wind``). Either
way the owner is told, quoting the rule.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.hour.turn import Turn, own_af
from mailbot.games.flattop.orders.decks import CARRIERS, RULE_6_10, RULE_6_10_VARIANT, into_the_wind
from mailbot.games.flattop.orders.types import Fly, Land, Search
from mailbot.games.flattop.units import TaskForce


def turn_into_the_wind(turn: Turn) -> None:
    """Standard 6.10 for every TF whose carriers exceed their Minimum LF this turn."""
    for tf in turn.state.task_forces:
        if any(s.type in CARRIERS for s in tf.afloat):
            _into_the_wind(turn, tf, _deck_load(turn, tf))


def _deck_load(turn: Turn, tf: TaskForce) -> int:
    """Factors taking off from ``tf`` this turn plus those its side plans to land on it."""
    place, total = f"TF{tf.number}", 0
    for order in turn.orders.get(tf.side, ()):
        if isinstance(order, Land) and order.place == place:
            formation = own_af(turn, tf.side, order.af)
            total += formation.factors if formation is not None else 0
        if not isinstance(order, Search | Fly):
            continue
        launched = order.launch.total if order.launch is not None else 0
        total += launched if order.launch is not None and order.launch.place == place else 0
        if order.back == place:
            formation = own_af(turn, tf.side, order.af)
            total += launched if formation is None or order.launch is not None else formation.factors
    return total


def _into_the_wind(turn: Turn, tf: TaskForce, load: int) -> None:
    st = turn.state
    winds = {w.sector: w.direction for w in st.weather.winds}
    leg = tf.plot[0] if tf.plot else ()
    variant = st.options.launch_wind == "variant"
    turned = into_the_wind(tf, leg, load, st.scenario, winds, variant=variant)
    if turned is None:
        return
    moved = replace(tf, plot=(turned, *tf.plot[1:]))
    turn.state = replace(st, task_forces=tuple(moved if t is tf else t for t in st.task_forces))
    name = st.scenario.map.hex_id
    head = f"TF{tf.number} launches or lands more than its carriers' minimum LF"
    if not variant:
        turn.tell(
            tf.side,
            "wind",
            f"{head}: it turns one hex into the wind, to {name(turned[0])}, this turn ({RULE_6_10})",
        )
        return
    plotted = " ".join(name(h) for h in leg)
    if turned:
        what = f"it moves only the one hex into the wind, to {name(turned[0])}"
    else:
        what = f"its plot does not start into the wind, so it holds at {name(tf.hex)} (a design default)"
    turn.tell(
        tf.side,
        "wind",
        f"{head}: it may move only 0 or 1 hex, and that hex must be into the wind; plotted "
        f"{plotted}, {what} this turn ({RULE_6_10_VARIANT})",
    )
