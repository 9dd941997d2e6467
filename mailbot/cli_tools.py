# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot simulate``: the simulations the game packages declare (``mailbot.core.simulation``)."""

from __future__ import annotations

import inspect
import random
from enum import Enum, StrEnum
from functools import cache
from typing import Any

import typer
from typer.core import TyperGroup

from mailbot.core.simulation import Option, Simulation
from mailbot.registry import GamePackage, default_registry
from mailbot.services.base.gamedata import data_root, read_tree


class _Simulations(TyperGroup):
    """``mailbot simulate``: one command for each game package that declares a simulation
    (``mailbot.core.simulation``), looked up when the command line is asked for one."""

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(_simulations())

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = _simulations().get(cmd_name)
        return None if found is None else _command(*found)


simulate_app = typer.Typer(
    cls=_Simulations, help="Measure what a rule gives over many simulated games.", no_args_is_help=True
)


@cache
def _simulations() -> dict[str, tuple[GamePackage, Simulation]]:
    found = {}
    for package in default_registry():
        simulation = package.simulation
        if simulation is not None:
            found[simulation.command] = (package, simulation)
    return found


def _command(package: GamePackage, simulation: Simulation) -> Any:
    """The declared simulation as a command: its options, then ``--seed``."""

    def command(**options: Any) -> None:
        seed = options.pop("seed")
        plain = {name: value.value if isinstance(value, Enum) else value for name, value in options.items()}
        data = read_tree(data_root(package))
        for line in simulation.run(plain, random.Random(seed), data):
            typer.echo(line)

    parameters = [_parameter(option) for option in simulation.options]
    seed = typer.Option(None, "--seed", help="Seed for a repeatable run.")
    parameters.append(
        inspect.Parameter("seed", inspect.Parameter.KEYWORD_ONLY, default=seed, annotation=int | None)
    )
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__doc__ = simulation.help
    single = typer.Typer(add_completion=False)
    single.command(simulation.command)(command)
    return typer.main.get_command(single)


def _words(name: str, choices: tuple[str, ...]) -> Any:
    """An option's words as the enum the command line checks a value against."""
    return StrEnum(name, {choice: choice for choice in choices})


def _parameter(option: Option) -> inspect.Parameter:
    kind: Any = option.kind
    if option.choices:
        kind = _words(option.name, option.choices)
    if option.default is None:
        kind = kind | None
    flags = [option.flag] if option.kind is not bool else [f"{option.flag}/--no-{option.flag[2:]}"]
    default = typer.Option(option.default, *flags, help=option.help, min=option.low, max=option.high)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
