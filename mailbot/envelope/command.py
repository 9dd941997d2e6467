# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot envelope``: seed 004's sealed-envelope number from hex values and odds (the edge:
it reads the shipped chart and design defaults, ``rules`` computes)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import typer

from mailbot.core.defaults import DesignDefault, find_default, read_defaults
from mailbot.envelope.rules import DEFAULT_NOTE, Attack, defaults_used, envelope_number, load_hex_chart

#: seed 004 prints three cells of the chart; the rest is a generated default
SHIPPED_CHART = files("mailbot.envelope") / "data" / "hex-values.toml"
SHIPPED_DEFAULTS = files("mailbot.envelope") / "data" / "defaults.toml"


def _envelope_defaults() -> tuple[DesignDefault, ...]:
    import tomllib

    text = SHIPPED_DEFAULTS.read_text(encoding="utf-8")
    return read_defaults(tomllib.loads(text), "defaults.toml")


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
