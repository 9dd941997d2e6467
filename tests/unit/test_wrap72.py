# SPDX-License-Identifier: GPL-3.0-or-later
"""Plain-text parts wrap at 72 columns; long tokens and the ORDERS ... END template stay whole."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from mailbot.registry import GamePackage, default_registry
from mailbot.render.templates import LONG_TOKEN, WIDTH, Renderer, wrap72
from mailbot.services.post.identity import Identity
from mailbot.services.post.letters import Draft, Postman
from mailbot.testing import contract
from tests.played import played

REGISTRY = default_registry()
PACKAGES = REGISTRY.packages()
RENDERER = Renderer(registry=REGISTRY)
POSTMAN = Postman(
    renderer=RENDERER,
    identity=Identity(address="mailbot@example.org", name="mailbot"),
    new_message_id=lambda: "<1@example.org>",
)


def views(package: GamePackage) -> Iterator[tuple[str, Any]]:
    """Every seat's and the referee's report model at the start and after every step."""
    log, game = played(package.name), package.game
    moments = [(game.load(log.start), ())]
    moments += [(record.outcome.state, record.outcome.events) for record in log.steps]
    for n, (state, events) in enumerate(moments):
        for seat in (*log.setup.seats, None):
            yield f"{package.name} moment {n} seat {seat}", game.view(state, events, seat)


@cache
def letters(name: str) -> list[tuple[str, Any, str]]:
    """Each moment's report model and its letter's text part, made once for both tests of the
    package (a Flat Top game's letters, rendered twice, were most of this file's time)."""
    package = REGISTRY.find(name)
    return [(where, view, letter_text(package, view)) for where, view in views(package)]


def letter_text(package: GamePackage, view: Any) -> str:
    """The text part as the bot mails it: the game's report inside ``common/letter``."""
    body = RENDERER.render(f"{package.name}/report", {"r": view})
    letter = Draft("player@example.org", "report", body=body)
    letter.section("Orders", ["Send: ORDERS 3a followed by your orders, one per line, then END."])
    letter.footer.append("Game log chain head: " + "ab" * 32)
    return POSTMAN.render(letter).text


def too_wide(text: str) -> list[str]:
    """Lines over 72 columns that no long token (hash, seed, URL) accounts for, outside ORDERS ... END."""
    template = {line for block in orders_blocks(text) for line in block}
    return [
        line
        for line in text.splitlines()
        if len(line) > WIDTH and max(len(word) for word in line.split()) < LONG_TOKEN and line not in template
    ]


def orders_blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if current is None and re.fullmatch(r"ORDERS(\s+\S+)?", line.strip()):
            current = [line]
        elif current is not None:
            current.append(line)
            if line.strip() == "END":
                blocks.append(current)
                current = None
    return blocks


@pytest.mark.parametrize("package", PACKAGES, ids=[p.name for p in PACKAGES])
def test_every_report_letter_wraps_at_72_columns(package: GamePackage) -> None:
    checked = 0
    for where, _view, text in letters(package.name):
        assert not too_wide(text), f"{where}:\n" + "\n".join(too_wide(text))
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("package", PACKAGES, ids=[p.name for p in PACKAGES])
def test_the_orders_template_reaches_the_letter_unchanged(package: GamePackage) -> None:
    """Every ORDERS ... END block the report template prints is in the mailed letter line for line."""
    env = contract.report_env(REGISTRY)
    for where, view, sent in letters(package.name):
        raw = contract.render_report(env, package, view, "txt")
        for block in orders_blocks(raw):
            assert "\n".join(block) in sent, where


def test_an_orders_block_is_never_rewrapped() -> None:
    order = "MOVE TF-1 " + " ".join(f"F{n:02d}" for n in range(30))  # one order, far over 72 columns
    text = f"Your orders:\nORDERS 3a\n{order}\n  {order}\nEND\n{order}\n"
    lines = wrap72(text).splitlines()
    assert lines[:5] == ["Your orders:", "ORDERS 3a", order, f"  {order}", "END"]
    assert all(len(line) <= WIDTH for line in lines[5:]) and len(lines) > 6


def test_an_orders_line_without_end_is_prose() -> None:
    """The HELP row ``ORDERS [step] ... END`` opens no block: the lines after it still wrap."""
    long = "word " * 30
    wrapped = wrap72(f"ORDERS 3a\n{long}").splitlines()
    assert wrapped[0] == "ORDERS 3a" and all(len(line) <= WIDTH for line in wrapped)


def test_hanging_indent_keeps_the_leading_whitespace() -> None:
    line = "    " + " ".join(["observation"] * 12)
    first, *rest = wrap72(line).splitlines()
    assert first.startswith("    observation") and rest
    assert all(r.startswith("      ") and not r.startswith("       ") for r in rest)
    assert " ".join(" ".join(x.split()) for x in (first, *rest)) == " ".join(line.split())


def test_a_bullet_continues_under_its_text() -> None:
    line = "  - " + " ".join(["contact"] * 15)
    first, *rest = wrap72(line).splitlines()
    assert first.startswith("  - contact") and all(r.startswith("    contact") for r in rest)


def test_long_tokens_are_never_broken() -> None:
    url = "https://example.org/" + "a" * 80
    digest = "0123456789abcdef" * 4
    text = wrap72(f"{url}\nsee the archive at {url} and then compare it with every report\n")
    assert url in text.splitlines() and text.count(url) == 2
    label = f"Game log chain head: {digest}"
    assert wrap72(label) == label  # verify.py finds the head on this one line
    long_label = "Dice commitment for this step (SHA-256 of its secret seed): " + digest
    assert digest in wrap72(long_label).splitlines()[-1].split()


def test_short_text_and_wrapping_twice_change_nothing() -> None:
    text = "Hello.\n\n  Turn  Bids\n" + " ".join(["word"] * 40) + "\n"
    once = wrap72(text)
    assert wrap72("Hello.\n  - a\n") == "Hello.\n  - a\n"
    assert wrap72(once) == once and once.endswith("\n")


def test_breaks_fall_where_phrases_stay_together() -> None:
    """A clause boundary that keeps the rest whole first; else the evenest lines, not greedy ones."""
    prose = "To send orders, reply to this letter: edit the lines between ORDERS and END"
    assert wrap72(prose).splitlines() == [
        "To send orders,",
        "  reply to this letter: edit the lines between ORDERS and END",
    ]
    refusal = "   -> the values of Turn 1 of 3: sealed initiative bids were opened before the rollback"
    lines = wrap72(refusal + " and stand as they were").splitlines()
    assert len(lines) == 2 and lines[1].startswith("      ") and "opened before the rollback" in lines[1]
