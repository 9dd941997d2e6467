# SPDX-License-Identifier: GPL-3.0-or-later
"""The plugin contract, run over every registered game and every fixture game (see ``conftest``)."""

from __future__ import annotations

import pytest

from mailbot.registry import GamePackage
from mailbot.testing import contract
from tests.contract.conftest import REGISTRY
from tests.played import played

PACKAGES = REGISTRY.packages()
IDS = [package.name for package in PACKAGES]


@pytest.fixture(params=PACKAGES, ids=IDS)
def package(request: pytest.FixtureRequest) -> GamePackage:
    found: GamePackage = request.param
    return found


def test_the_kit_covers_the_five_games_and_the_fixture() -> None:
    assert {"duel", "wif-turn-end", "atlantic-storm", "salt-n-tar", "flattop", "sealed-bid-auction"} <= set(
        IDS
    )


def test_the_plugin_has_every_protocol_member(package: GamePackage) -> None:
    contract.check_protocol(package)


def test_option_defaults_and_the_default_scenario_hold(package: GamePackage) -> None:
    contract.check_declarations(package)


def test_every_game_ships_both_report_templates_and_a_demo(package: GamePackage) -> None:
    env = contract.report_env(REGISTRY)
    for kind in ("txt", "html"):
        env.get_template(f"{package.name}/report.{kind}.j2")
    assert package.demo is not None


def test_a_whole_demo_game_reaches_its_end(package: GamePackage) -> None:
    log = played(package.name, REGISTRY)
    assert log.finished, f"{package.name} stopped after {len(log.steps)} steps"
    assert log.steps, "a game of no steps tests nothing"


def test_the_demo_players_orders_are_accepted(package: GamePackage) -> None:
    contract.check_demo_orders_accepted(played(package.name, REGISTRY))


def test_parse_accepts_its_own_normalised_lines_unchanged(package: GamePackage) -> None:
    contract.check_normalised_round_trip(played(package.name, REGISTRY))


def test_default_orders_parse(package: GamePackage) -> None:
    contract.check_defaults_parse(played(package.name, REGISTRY))


def test_parse_answers_bad_lines_and_never_raises(package: GamePackage) -> None:
    contract.check_parse_never_raises(played(package.name, REGISTRY))


def test_resolve_is_deterministic(package: GamePackage) -> None:
    contract.check_deterministic(played(package.name, REGISTRY))


def test_dump_and_load_round_trip(package: GamePackage) -> None:
    contract.check_dump_load(played(package.name, REGISTRY))


def test_every_template_renders_for_every_seat_and_the_referee(package: GamePackage) -> None:
    contract.check_templates(played(package.name, REGISTRY), REGISTRY)
