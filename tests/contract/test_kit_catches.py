# SPDX-License-Identifier: GPL-3.0-or-later
"""The contract kit can fail: broken variants of the auction fixture are caught (mypy and run time)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from mailbot.core.dice import Dice
from mailbot.core.game import Line, Outcome, Parsed
from mailbot.core.options import GameOption
from mailbot.registry import GamePackage
from mailbot.testing import contract
from tests.contract.conftest import REGISTRY
from tests.contract.fixtures.auction.game import AuctionGame, AuctionState, Bid

AUCTION = REGISTRY.find("auction")
ROOT = Path(__file__).resolve().parents[2]


class Forgetful(AuctionGame):
    """Loses the money on load."""

    def load(self, data: Mapping[str, Any]) -> AuctionState:
        state = super().load(data)
        return replace(state, money=dict.fromkeys(state.money, 100))


class Moody(AuctionGame):
    """Resolves differently every time it is asked (a hidden counter)."""

    calls = count()

    def resolve(
        self, state: AuctionState, orders: Mapping[str, Sequence[Bid]], *, dice: Dice
    ) -> Outcome[AuctionState]:
        outcome = super().resolve(state, orders, dice=dice)
        return replace(outcome, result=f"{outcome.result} #{next(self.calls)}")


class Restless(AuctionGame):
    """Echoes a normalised line that it then refuses."""

    def parse(self, state: AuctionState, seat: str, lines: Sequence[Line]) -> Parsed[Bid]:
        parsed = super().parse(state, seat, lines)
        worded = tuple(replace(a, normalised=f"BID {a.order.amount} coins") for a in parsed.accepted)
        return replace(parsed, accepted=worded)


class Renamed(AuctionGame):
    """``view`` with a parameter named differently from the protocol."""

    def view(self, state: AuctionState, events: Sequence[Any], who: str | None) -> Mapping[str, Any]:  # type: ignore[override]
        return super().view(state, events, who)


class Brittle(AuctionGame):
    """Reads the amount of a bare ``BID`` that is not there (IndexError)."""

    def parse(self, state: AuctionState, seat: str, lines: Sequence[Line]) -> Parsed[Bid]:
        for line in lines:
            if line.text.split()[0].upper() == "BID":
                int(line.text.split()[1])
        return super().parse(state, seat, lines)


class BadDefault(AuctionGame):
    """Declares an option whose default its own bounds refuse."""

    options = (GameOption("rounds", "rounds played", int, 0, low=1, high=9),)


def variant(game: AuctionGame, default_scenario: str = "standard") -> GamePackage:
    return GamePackage(AUCTION.module, game, AUCTION.demo, default_scenario)


def test_the_unbroken_fixture_passes_every_check() -> None:
    log = contract.play_through(AUCTION, REGISTRY)
    contract.check_protocol(AUCTION)
    contract.check_dump_load(log)
    contract.check_deterministic(log)
    contract.check_normalised_round_trip(log)


def test_a_load_that_loses_state_is_caught() -> None:
    log = contract.play_through(variant(Forgetful()), REGISTRY)
    with pytest.raises(contract.ContractViolation, match="round-trip"):
        contract.check_dump_load(log)


def test_a_resolve_that_is_not_deterministic_is_caught() -> None:
    log = contract.play_through(variant(Moody()), REGISTRY)
    with pytest.raises(contract.ContractViolation, match="not deterministic"):
        contract.check_deterministic(log)


def test_a_normalised_line_that_does_not_parse_to_itself_is_caught() -> None:
    log = contract.play_through(variant(Restless()), REGISTRY)
    with pytest.raises(contract.ContractViolation, match="re-parsed"):
        contract.check_normalised_round_trip(log)


def test_a_parse_that_raises_on_a_bad_line_is_caught() -> None:
    log = contract.play_through(variant(Brittle()), REGISTRY)  # the demo's own lines parse
    with pytest.raises(
        contract.ContractViolation, match=r"parse raised (IndexError|ValueError).* on the line 'BID"
    ):
        contract.check_parse_never_raises(log)


def test_an_option_default_its_own_rule_refuses_is_caught() -> None:
    with pytest.raises(
        contract.ContractViolation, match="option rounds's default is refused: rounds is a whole"
    ):
        contract.check_declarations(variant(BadDefault()))


def test_a_default_scenario_the_game_does_not_know_is_caught() -> None:
    contract.check_declarations(variant(AuctionGame()))
    with pytest.raises(contract.ContractViolation, match="default scenario 'classic' cannot be set up"):
        contract.check_declarations(variant(AuctionGame(), "classic"))


def test_a_drifted_signature_is_caught_at_run_time() -> None:
    with pytest.raises(contract.ContractViolation, match="view"):
        contract.check_protocol(variant(Renamed()))


DRIFTED = """
    from collections.abc import Mapping, Sequence
    from typing import Any

    from mailbot.core.game import Game
    from tests.contract.fixtures.auction.game import AuctionGame, AuctionState, Bid


    class Drifted(AuctionGame):
        def default_orders(self, state: AuctionState, seat: str, turn: int) -> Sequence[str]:  # {marker}
            return ["BID 0"]


    GAME: Game[AuctionState, Bid] = Drifted()
"""


@pytest.mark.parametrize("ignore", [False, True], ids=["drifted", "control"])
def test_mypy_fails_when_a_games_method_signature_drifts(tmp_path: Path, ignore: bool) -> None:
    # The control run silences the override error only: GAME's annotation must still fail.
    marker = "type: ignore[override]" if ignore else "drift"
    module = tmp_path / "drifted_game.py"
    module.write_text(textwrap.dedent(DRIFTED).replace("{marker}", marker))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stdout
    assert 'Incompatible types in assignment (expression has type "Drifted"' in run.stdout
