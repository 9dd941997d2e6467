# SPDX-License-Identifier: GPL-3.0-or-later
"""A scripted Flat Top player for the by-mail demo (coral-sea-demo scenario).

:func:`flattop_orders` reads the side's own report letter (the text part of
the package's ``templates/report.txt.j2``) and answers with order lines in the
normalised syntax of :mod:`mailbot.games.flattop.orders.parse`. It knows only what
a player knows: its own units, its contacts and the storms printed in the
report, plus a staff guess of where the enemy carriers were last seen
historically (each side's opening search sector). Over three turns each side
sends search flights from its carrier TF toward that sector, routed around
storms; once a contact is in the report the searchers close on it. So the two
sides find each other and get different reports.

Pure: no I/O; the only state is the report text and the turn number.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from mailbot.core.demo import DemoScript, orders
from mailbot.games.flattop.map.hexes import STANDARD_LAYOUT, Hex, distance, hex_id, neighbours, parse_hex_id

#: each side's search sector: where its staff expects the enemy carriers (the scenario's start hexes)
SECTOR = {"allied": "VII-E34", "japanese": "VI-N36"}
PLANE = {"allied": "Dauntless", "japanese": "Zero"}
MF = {"Dauntless": 9, "Zero": 10}  # planes.toml (design defaults)
CARRIER_TF = "TF1"

_AF = re.compile(r"^\s+AF(\d+) at (\S+), (high|low), .*, MF (\d+), range left (-?\d+)", re.MULTILINE)
_TF = re.compile(r"^\s+TF(\d+) at (\S+),", re.MULTILINE)
_CONTACT = re.compile(r"^\s+D\d+ \d{4} (\S+) ships condition (\d)", re.MULTILINE)
_STORMS = re.compile(r"^Storms: (.*)$", re.MULTILINE)


@dataclass
class Report:
    tfs: dict[int, Hex] = field(default_factory=dict)
    air: dict[int, tuple[Hex, int, int]] = field(default_factory=dict)  # AF -> hex, MF, range left
    ships: list[Hex] = field(default_factory=list)
    storms: frozenset[Hex] = frozenset()


def read_report(text: str) -> Report:
    """The few facts the script needs from a report letter (own units only, contacts, storms)."""
    report = Report()
    for number, where in _TF.findall(text):
        if (h := parse_hex_id(where)) is not None:
            report.tfs[int(number)] = h
    for number, where, _, mf, left in _AF.findall(text):
        if (h := parse_hex_id(where)) is not None:
            report.air[int(number)] = (h, int(mf), int(left))
    report.ships = [h for where, _ in _CONTACT.findall(text) if (h := parse_hex_id(where)) is not None]
    storms = _STORMS.search(text)
    words = storms[1].split() if storms and storms[1] != "none" else []
    report.storms = frozenset(h for w in words if (h := parse_hex_id(w)) is not None)
    return report


def route(start: Hex, goal: Hex, storms: frozenset[Hex], limit: int) -> list[Hex]:
    """The first ``limit`` hexes of a shortest on-board path around storms (breadth first)."""
    before: dict[Hex, Hex | None] = {start: None}
    queue = deque([start])
    while queue and goal not in before:
        here = queue.popleft()
        for h in neighbours(here):
            if h not in before and STANDARD_LAYOUT.on_board(h) and h not in storms:
                before[h] = here
                queue.append(h)
    end = goal if goal in before else min(before, key=lambda h: _distance_key(h, goal))
    path: list[Hex] = []
    while end != start:
        path.append(end)
        end = before[end]  # type: ignore[assignment]
    return list(reversed(path))[:limit]


def _distance_key(h: Hex, goal: Hex) -> tuple[int, int, int]:
    return distance(h, goal), h.col, h.row


def _path_text(path: list[Hex], linger: int) -> str:
    words = [hex_id(h) for h in path]
    if words and linger:
        words[-1] += f"+{linger}"  # seed 003, 7.3: spend the spare MP for more rolls at the end
    return " ".join(words)


def _launch(seat: str, report: Report, af: int, goal: Hex) -> list[str]:
    start = report.tfs.get(int(CARRIER_TF[2:]))
    if start is None:
        return []
    plane = PLANE[seat]
    path = route(start, goal, report.storms, MF[plane])
    if not path:
        return []
    linger = MF[plane] - len(path)
    return [f"SEARCH AF{af} FROM {CARRIER_TF} 2 {plane} PATH {_path_text(path, linger)} IF SHIPS CLOSE 2"]


def _fly_on(report: Report, af: int, goal: Hex) -> list[str]:
    here, mf, _ = report.air[af]
    path = route(here, goal, report.storms, mf)
    if not path:
        return [f"SEARCH AF{af} PATH {hex_id(here)}+{mf - 1}"] if mf > 1 else []
    return [f"SEARCH AF{af} PATH {_path_text(path, mf - len(path))} IF SHIPS CLOSE 3"]


def flattop_orders(seat: str, step_key: str, report_text: str, turn: int) -> list[str]:
    """Order lines for ``seat`` in step ``step_key`` (turn ``turn``) after reading its report."""
    if seat not in SECTOR or not step_key.endswith(".orders"):
        return ["HOLD"]
    report = read_report(report_text)
    sector = parse_hex_id(SECTOR[seat])
    assert sector is not None
    goal = report.ships[0] if report.ships else sector
    lines = ["DECEPTION RANDOM" if seat == "allied" else "DECEPTION MAXIMAL"]
    for af in sorted(report.air):
        # The first searcher heads home on turn 3; later ones search on.
        lines += [f"LAND AF{af} {CARRIER_TF}"] if turn >= 3 and af == 1 else _fly_on(report, af, goal)
    if turn <= 2:
        lines += _launch(seat, report, turn, goal)
    return lines


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    return orders(step, *flattop_orders(seat, step, text, n + 1))


#: A day and a night, D1 0500 to D2 0600: the night hours after nightfall are played without
#: mail (quiet hours, ``quiet.py``), so each side gets fewer letters than there are hours.
DEMO = DemoScript("coral-sea-demo", "Demo Flat Top: Coral Sea", _answer, stop_after=None)
