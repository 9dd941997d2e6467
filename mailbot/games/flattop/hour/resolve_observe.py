# SPDX-License-Identifier: GPL-3.0-or-later
"""The observation phase: TFs, bases, radar and coastwatchers (seed 003, 7.5, 7.9.5, 7.9.6, 7.12).

Everything is seen where it stands after all movement; ``observe`` decides
what each watcher sees, and the spottings go to the turn for the reports.
"""

from __future__ import annotations

from collections.abc import Sequence

from mailbot.games.flattop.hour import sub_phase
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.observation.observe import (
    Spotting,
    Target,
    Watcher,
    coastwatcher_net,
    coastwatcher_observation,
    radar_observation,
    surface_observation,
)
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side


def watchers(state: FlatTopState, side: Side) -> tuple[Watcher, ...]:
    """The side's TFs and on-board bases (the observer key is the side's own designation)."""
    tfs = tuple(
        Watcher(f"TF{tf.number}", "TF", side, tf.hex, radar=any(s.radar for s in tf.afloat))
        for tf in state.own_tfs(side)
    )
    bases = tuple(
        Watcher(b.name, "BASE", side, b.hex, radar=b.radar)
        for b in state.own_bases(side)
        if b.hex is not None
    )
    return tfs + bases


def standing_observation(turn: Turn, side: Side, targets: Sequence[Target]) -> list[Spotting]:
    """What the side's TFs, bases, radar and coastwatchers see of ``targets`` (no die roll)."""
    st, sky, table = turn.state, turn.sky(), turn.state.rules.observation
    targets = sub_phase.visible_targets(turn, side, targets)  # seed 003, 27.4-27.5.2
    spots: list[Spotting] = []
    for watcher in watchers(st, side):
        spots.extend(surface_observation(watcher, targets, sky, table))
        spots.extend(radar_observation(watcher, targets, table))
    scenario = st.scenario
    net = coastwatcher_net(side, scenario.map, scenario.islands, scenario.coastwatchers, st.bases)
    spots.extend(coastwatcher_observation(net, targets, sky, st.rules.coastwatchers))
    return sub_phase.as_subs_see(turn, side, spots)  # 27.3: what submarines observe, by depth


def observe_all(turn: Turn) -> None:
    targets = turn.targets()
    for side in turn.sides():
        turn.spot(side, standing_observation(turn, side, targets))
    sub_phase.overhead(turn)  # 27.5.2
