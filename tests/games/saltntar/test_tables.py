# SPDX-License-Identifier: GPL-3.0-or-later
"""Every Salt'n'Tar table in mailbot/games/saltntar/data against the seed's printed numbers (seed 001).

The seed's tables are quoted here verbatim (LaTeX source) and read with a
small pattern, so a typo in the TOML data cannot hide behind a typo in a
hand-copied expectation.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mailbot.games.saltntar.tables import BEARINGS, Rules

SEED_FILE = Path("/work/shared/seeds/001_7f257fe92b4353e0.txt")

# seed 001, "Ship types": each \subsubsection and its tabularx body.
SEED_SHIPS = {
    "large-galley": (
        r"\subsubsection{Large Galley} A Trireme or Quadrireme, ships with three to four rowing "
        r"benches and probably more then one lateen rigged mast: \smallmap{img/Trireme.jpg} "
        r"\begin{tabularx}{\columnwidth}{Zc} Bearing & Bearing Number (BN) \\ Running & 9 \\ Broad "
        r"Reaching & 10 \\ Quarter Reaching & 8 \\ Beating & 3 \\ Luffing & 1 (backwards) \\ "
        r"\end{tabularx}"
    ),
    "small-galley": (
        r"\subsubsection{Small Galley} A Bireme or smaller, ships with one or two rowing benches "
        r"and a single lateen rigged mast. \begin{tabularx}{\columnwidth}{Zc} Bearing & Bearing "
        r"Number (BN) \\ Running & 8 \\ Broad Reaching & 9 \\ Quarter Reaching & 7 \\ Beating & 2 "
        r"\\ Luffing & 1 (backwards) \\ \end{tabularx}"
    ),
    "viking-longship": (
        r"\subsubsection{Viking Longship} A fast square rigged sailer, one mast: "
        r"\smallmap{img/Longship.png} \begin{tabularx}{\columnwidth}{Zc} Bearing & Bearing Number "
        r"(BN) \\ Running & 11 \\ Broad Reaching & 12 \\ Quarter Reaching & 9 \\ Beating & 4 \\ "
        r"Backing & 2 (backwards) \\ \end{tabularx}"
    ),
    "large-merchant": (
        r"\subsubsection{Large Merchant} A square rigged trading vessel with full lines and two to "
        r"three masts. A Hulk, Carrack or Caravel. \smallmap{img/Galleon.png} "
        r"\begin{tabularx}{\columnwidth}{Zc} Bearing & Bearing Number (BN) \\ Running & 9 \\ Broad "
        r"Reaching & 10 \\ Quarter Reaching & 8 \\ Beating & 3 \\ Backing & 1 (backwards) \\ "
        r"\end{tabularx}"
    ),
    "small-merchant": (
        r"\subsubsection{Small Merchant} A small trading vessel with full lines, and usually just "
        r"one mast. A Cog. \smallmap{img/Cog.jpg} \begin{tabularx}{\columnwidth}{Zc} Bearing & "
        r"Bearing Number (BN) \\ Running & 8 \\ Broad Reaching & 9 \\ Quarter Reaching & 7 \\ "
        r"Beating & 3 \\ Backing & 1 (backwards) \\ \end{tabularx}"
    ),
    "sailed-warship": (
        r"\subsubsection{Sailed Warship} A Galleon or Man-'o-War, a massive ship with three or "
        r"four masts, the fore- and mainmast are always square rigged. One or more gun decks or at "
        r"least multiple catapults. \smallmap{img/Carrack.png} \begin{tabularx}{\columnwidth}{Zc} "
        r"Bearing & Bearing Number (BN) \\ Running & 10 \\ Broad Reaching & 11 \\ Quarter Reaching "
        r"& 10 \\ Beating & 4 \\ Backing & 1 (backwards) \\ \end{tabularx}"
    ),
    "cutter": (
        r"\subsubsection{Cutter} A fore-n-aft rigged single masted boat. \smallmap{img/Cutter.jpg} "
        r"\begin{tabularx}{\columnwidth}{Zc} Bearing & Bearing Number (BN) \\ Running & 6 \\ Broad "
        r"Reaching & 8 \\ Quarter Reaching & 7 \\ Beating & 5 \\ Luffing & 1 (backwards) \\ "
        r"\end{tabularx}"
    ),
    "schooner": (
        r"\subsubsection{Schooner} A fore-n-aft rigged boat with two or more masts. The foremast "
        r"may have square sails. \smallmap{img/Schooner.jpg} \begin{tabularx}{\columnwidth}{Zc} "
        r"Bearing & Bearing Number (BN) \\ Running & 10 \\ Broad Reaching & 12 \\ Quarter Reaching "
        r"& 11 \\ Beating & 8 \\ Luffing & 1 (backwards) \\ \end{tabularx}"
    ),
}

# seed 001: the four roll tables, header row left out.
SEED_INITIAL_WIND = (
    r"1 & Wind Speed = 1 (light breeze) \\ 2 & Wind Speed = 1 \\ 3 & Wind Speed = 2 (moderate "
    r"breeze) \\ 4 & Wind Speed = 2 \\ 5 & Wind Speed = 3 (strong breeze) \\ 6 & Wind Speed = "
    r"3 \\"
)
SEED_WIND_ROLL = (
    r"1 & Direction change clockwise \\ 2 & Wind Speed = 1 \\ 3 & Wind Speed = 2 \\ 4 & Wind "
    r"Speed = 2 \\ 5 & Wind Speed = 3 \\ 6 & Direction change counter clockwise \\"
)
SEED_LUCK = (
    r"1 & Sails luff: Wind Speed -1 \\ 2 & no change \\ 3 & no change \\ 4 & no change \\ 5 & "
    r"a fortuitous gust: Wind Speed +1 \\ 6 & Wind Speed +2, mark 1 Strain \\"
)
SEED_STRAIN = (
    r"5- & no effect \ldots{} not yet! \\ 6 & spars and stays creak: mark 1 extra strain \\ 7 "
    r"& ship makes water: reduce all speed by 3'' ongoing \\ 8 & stays snap, mark 1 extra "
    r"strain \\ 9 & deck's awash, reduce active crew by 10\% \\ 10 & sails tear, reduce all "
    r"speed by 3'' ongoing \\ 11 & a mast breaks, reduce all speed by 3'' or drift \\ 12+ & "
    r"it's over, ship's sinking in 1d6 turns \\"
)

_ROW = re.compile(r"\s*(.+?) & (.+?) \\\\")


def latex_rows(text: str) -> list[tuple[str, str]]:
    cleaned = text.replace(r"\ldots{}", "...").replace(r"\%", "%")
    return [(a.strip(), b.strip()) for a, b in _ROW.findall(cleaned)]


def bn_rows(ship_text: str) -> list[tuple[str, str]]:
    body = ship_text.split(r"Bearing & Bearing Number (BN) \\", 1)[1]
    return latex_rows(body.split(r"\end{tabularx}", 1)[0])


def printed_rows(table: dict[str, Any]) -> list[tuple[str, str]]:
    return [(row["roll"], row["text"]) for row in table["rows"]]


@pytest.mark.skipif(not SEED_FILE.exists(), reason="the seed file is not on this machine")
def test_quotes_are_verbatim_from_the_seed() -> None:
    seed = SEED_FILE.read_text("utf-8")
    for quote in [*SEED_SHIPS.values(), SEED_INITIAL_WIND, SEED_WIND_ROLL, SEED_LUCK, SEED_STRAIN]:
        assert quote in seed


def test_all_eight_ship_types_are_data(data: dict[str, Any]) -> None:
    assert sorted(data["ships"]) == sorted(SEED_SHIPS)


@pytest.mark.parametrize("key", sorted(SEED_SHIPS))
def test_ship_bearing_numbers_as_printed(data: dict[str, Any], key: str) -> None:
    expected = bn_rows(SEED_SHIPS[key])
    rows = data["ships"][key]["bearings"]
    got = [(row["bearing"], f"{row['bn']}{' (backwards)' if row.get('backwards') else ''}") for row in rows]
    assert got == expected
    assert data["ships"][key]["name"] in SEED_SHIPS[key]


@pytest.mark.parametrize(
    ("key", "masts"),
    [
        ("large-galley", 2),  # "probably more then one lateen rigged mast"
        ("small-galley", 1),  # "a single lateen rigged mast"
        ("viking-longship", 1),  # "one mast"
        ("large-merchant", 2),  # "two to three masts"
        ("small-merchant", 1),  # "usually just one mast"
        ("sailed-warship", 3),  # "three or four masts"
        ("cutter", 1),  # "single masted"
        ("schooner", 2),  # "two or more masts"
    ],
)
def test_mast_counts_are_the_smallest_the_seed_allows(data: dict[str, Any], key: str, masts: int) -> None:
    assert data["ships"][key]["masts"] == masts


def test_initial_wind_speed_table(data: dict[str, Any]) -> None:
    table = data["tables"]["initial_wind_speed"]
    assert printed_rows(table) == latex_rows(SEED_INITIAL_WIND)
    for row in table["rows"]:
        assert f"Wind Speed = {row['speed']}" in row["text"]


def test_wind_roll_table(data: dict[str, Any]) -> None:
    table = data["tables"]["wind_roll"]
    assert printed_rows(table) == latex_rows(SEED_WIND_ROLL)
    effects = [(row["effect"], row.get("speed")) for row in table["rows"]]
    assert effects == [
        ("clockwise", None),
        ("speed", 1),
        ("speed", 2),
        ("speed", 2),
        ("speed", 3),
        ("counter-clockwise", None),
    ]


def test_luck_table(data: dict[str, Any]) -> None:
    table = data["tables"]["luck"]
    assert printed_rows(table) == latex_rows(SEED_LUCK)
    assert [(row["wind"], row["strain"]) for row in table["rows"]] == [
        (-1, 0),
        (0, 0),
        (0, 0),
        (0, 0),
        (1, 0),
        (2, 1),
    ]


def test_luck_shared_effects(data: dict[str, Any]) -> None:
    """ "Two or more rolls of a 1: ... reduce by 1 for everyone." "Two or more rolls of a 6:
    ... increases the overall windspeed by 1 for everyone"."""
    shared = [(rule["face"], rule["at_least"], rule["overall"]) for rule in data["tables"]["luck"]["shared"]]
    assert shared == [(1, 2, -1), (6, 2, 1)]


def test_strain_table(data: dict[str, Any]) -> None:
    table = data["tables"]["strain"]
    assert printed_rows(table) == latex_rows(SEED_STRAIN)
    effects = [(row["effect"], row.get("amount", 0)) for row in table["rows"]]
    assert effects == [
        ("none", 0),
        ("strain", 1),  # "mark 1 extra strain"
        ("speed", 3),  # "reduce all speed by 3''"
        ("strain", 1),
        ("crew", 10),  # "reduce active crew by 10%"
        ("speed", 3),
        ("mast", 3),  # "a mast breaks, reduce all speed by 3'' or drift"
        ("sinking", 3),  # 12+ also breaks a mast (see tables.toml)
    ]
    assert table["rows"][-1]["dice"] == "1d6"  # "sinking in 1d6 turns"


def test_calm_and_gale_thresholds(data: dict[str, Any]) -> None:
    """ "wind speeds of 0 = Calm, or 4+ = Storm are possible"."""
    weather = data["tables"]["weather"]
    assert (weather["calm"], weather["gale"]) == (0, 4)


def test_tables_load_and_bearings_map(data: dict[str, Any]) -> None:
    rules = Rules.from_data(data["ships"], data["tables"])
    assert rules.bearings(8) == BEARINGS
    assert rules.bearings(6) == ("running", "broad reaching", "beating", "head to wind")
    longship = rules.ship_type("viking-longship").row("head to wind")
    assert (longship.label, longship.bn, longship.backwards) == ("Backing", 2, True)
