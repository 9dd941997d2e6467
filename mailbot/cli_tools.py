# SPDX-License-Identifier: GPL-3.0-or-later
"""Command-line tools that need no mailbox: simulations and seed 004's envelope number."""

from __future__ import annotations

import random
from importlib.resources import files
from pathlib import Path

import typer

from mailbot.core.defaults import DesignDefault, find_default, read_defaults

#: seed 004 prints three cells of the chart; the rest is a generated default
SHIPPED_CHART = files("mailbot") / "data" / "envelope-hex-values.toml"
SHIPPED_DEFAULTS = files("mailbot") / "data" / "envelope-defaults.toml"


simulate_app = typer.Typer(help="Measure what a rule gives over many simulated games.", no_args_is_help=True)


@simulate_app.command("wif-turn-end")
def simulate_wif(
    dice: int = typer.Option(2, "--dice", min=1, max=4, help="d10s per impulse (circled weather number)."),
    turns: int = typer.Option(100_000, "--turns", min=1),
    seed: int | None = typer.Option(None, "--seed", help="Seed for a repeatable run."),
    pass_bonus: int = typer.Option(0, "--pass-bonus", min=0, help="Pass bonus on each die, every impulse."),
    sides: int = typer.Option(2, "--sides", min=2),
) -> None:
    """World in Flames last impulse test (seed 002): impulses per turn."""
    from mailbot.games.wif.simulate import always_pass, format_report, no_passes, simulate_turn_end

    passes = always_pass(pass_bonus) if pass_bonus else no_passes
    stats = simulate_turn_end(dice, turns, random.Random(seed), passes=passes, sides=sides)
    for line in format_report(stats):
        typer.echo(line)


@simulate_app.command("atlantic-storm")
def simulate_atlantic(
    games: int = typer.Option(100_000, "--games", min=1),
    enhanced: bool = typer.Option(False, "--enhanced", help="Use the enhanced selection algorithm."),
    seed: int | None = typer.Option(None, "--seed", help="Seed for a repeatable run."),
) -> None:
    """Atlantic Storm linear time (seed 000): how many convoys a campaign selects."""
    from mailbot.games.atlantic_storm.simulate import format_report, simulate

    for line in format_report(simulate(games, enhanced, random.Random(seed))):
        typer.echo(line)


@simulate_app.command("salt-n-tar")
def simulate_saltntar(
    ships: int = typer.Option(3, "--ships", min=1, max=12, help="Ships in each race, one side each."),
    races: int = typer.Option(1000, "--races", min=1),
    luck: str = typer.Option("always", "--luck", help="always | never: every side takes its luck roll."),
    seed: int | None = typer.Option(None, "--seed", help="Seed for a repeatable run."),
    recovery: str | None = typer.Option(
        None, "--recovery", help="none | reefed | any (default: the rule in tables.toml)."
    ),
    distance: int = typer.Option(40, "--distance", min=1, help="Cells (3'' each) to the finish line."),
) -> None:
    """Salt'n'Tar (seed 001): whole races with scripted captains; winners and sinkings."""
    from mailbot.games.saltntar.simulate import format_report, simulate

    if luck not in ("always", "never"):
        raise typer.BadParameter("--luck is always or never")
    if recovery is not None and recovery not in ("none", "reefed", "any"):
        raise typer.BadParameter("--recovery is none, reefed or any")
    rng = random.Random(seed)
    stats = simulate(
        _saltntar_data(), races, ships, luck == "always", rng, recovery=recovery, distance=distance
    )
    for line in format_report(stats):
        typer.echo(line)


def _saltntar_data() -> dict[str, object]:
    import tomllib

    folder = files("mailbot") / "games" / "saltntar" / "data"
    return {
        name: tomllib.loads((folder / f"{name}.toml").read_text(encoding="utf-8"))
        for name in ("ships", "tables", "defaults")
    }


def _envelope_defaults() -> tuple[DesignDefault, ...]:
    import tomllib

    text = SHIPPED_DEFAULTS.read_text(encoding="utf-8")
    return read_defaults(tomllib.loads(text), "envelope-defaults.toml")


def envelope(
    attacks: list[str] | None = typer.Argument(
        None, help="ODDS@HEX[+HEX...] each, e.g. 3-1@F12 5-1@G13 1-4@I-11"
    ),
    modulus: int = typer.Option(5, "--modulus", min=1, help="How many coin envelopes are in use."),
    chart: Path | None = typer.Option(
        None, "--chart", help="Hex value chart (TOML); default: the shipped chart (a design default)."
    ),
    defaults: bool = typer.Option(False, "--defaults", help="List every design default and exit."),
) -> None:
    """Seed 004's sealed-envelope number from hex values and odds."""
    from mailbot.core.envelope import DEFAULT_NOTE, Attack, defaults_used, envelope_number, load_hex_chart

    entries = _envelope_defaults()
    if defaults:
        typer.echo("Design defaults of the envelope number (not in seed 004):")
        for entry in entries:
            typer.echo(f"  - {entry.line}")
        return
    if not attacks:
        raise typer.BadParameter("list the attacks, e.g. 3-1@F12 5-1@G13 1-4@I-11", param_hint="ATTACKS")
    parsed = []
    for text in attacks:
        odds, _, hexes = text.partition("@")
        parsed.append(Attack(odds, tuple(h for h in hexes.split("+") if h)))
    text = chart.read_text(encoding="utf-8") if chart else SHIPPED_CHART.read_text(encoding="utf-8")
    hex_chart = load_hex_chart(text)
    result = envelope_number(parsed, hex_chart.rows, modulus, hex_chart.known)
    for line in result.lines:
        typer.echo(f"  {line.text}")
    if result.defaulted:
        typer.echo(f"  {DEFAULT_NOTE}")
    if len(result.batches()) > 1:
        # seed 004: "If you have more than ten combat situations then you must use the NEXT
        # numbered coin envelope. (If you use number 4, the next to be opened would be 0)."
        typer.echo(f"  {len(result.lines)} combats: ten per envelope, then the next numbered envelope")
    for problem in result.problems:
        typer.echo(f"  problem: {problem.reason}", err=True)
    for key in defaults_used(result):
        if key != "chart":  # the starred values say it already
            typer.echo(f"  {find_default(entries, key).cite} (mailbot envelope --defaults lists them)")
    typer.echo(result.summary)
    if result.envelope is None:
        raise typer.Exit(1)
