# SPDX-License-Identifier: GPL-3.0-or-later
"""Every reply layout in tests/data/mail/replies: only the new orders are read (issue 13).

Each fixture is a reply as a mail client writes it, with ``{NEW}`` where the
writer's new order block goes and ``{OLD}`` where the quoted original goes (a
report of the bot with last turn's order block in it). ``PREFIX{OLD}`` quotes
every old line with the prefix. README.md there names each layout's source.
"""

from __future__ import annotations

import html
import json
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailbot.core.commands import BASIC_COMMANDS, index_specs, read_commands
from mailbot.mail.mime import parse_letter
from mailbot.services.play.gm import GM_COMMANDS
from mailbot.services.play.mailgame import PLAYER_COMMANDS

REPLIES = Path(__file__).resolve().parents[1] / "data" / "mail" / "replies"
LAYOUTS = sorted(p for p in REPLIES.iterdir() if p.suffix in (".txt", ".html"))
EXPECTED = json.loads((REPLIES / "expected.json").read_text(encoding="utf-8"))
SPECS = index_specs((*BASIC_COMMANDS, *PLAYER_COMMANDS, *GM_COMMANDS))

NEW = ["ORDERS", "ATTACK 3", "DEFEND 0", "END"]
OLD = [
    "== Test duel: report for north ==",
    "Turn 1: orders.",
    "Your hit points: 10 of 10; south: 10 of 10.",
    "How to send orders:",
    "Send your orders for turn 1 between ORDERS and END, one a line:",
    "ORDERS",
    "ATTACK 1",
    "DEFEND 2",
    "END",
    "-- ",
    "mailbot test, the game moderator. Send HELP for the list of commands.",
]


def expand(template: str, new: list[str], old: list[str], *, as_html: bool) -> str:
    """The fixture with the order blocks put in; ``PREFIX{OLD}`` quotes each old line."""
    if as_html:
        joined = "<br>\n".join
        return template.replace("{NEW}", joined(html.escape(x) for x in new)).replace(
            "{OLD}", joined(html.escape(x) for x in old)
        )
    out: list[str] = []
    for line in template.split("\n"):
        if "{OLD}" in line:
            prefix = line.split("{OLD}")[0]
            out.extend(f"{prefix}{item}" for item in old)
        elif line.strip() == "{NEW}":
            out.extend(new)
        else:
            out.append(line)
    return "\n".join(out)


def as_mail(path: Path, body: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "north@players.test"
    msg["To"] = "bot@example.test"
    msg["Subject"] = "Re: Test duel: the game begins"
    msg["Message-ID"] = f"<{path.stem}@players.test>"
    msg.set_content(body, subtype="html" if path.suffix == ".html" else "plain")
    return msg.as_bytes()


def test_corpus_covers_the_layouts_of_issue_13() -> None:
    assert len(LAYOUTS) >= 35
    readme = (REPLIES / "README.md").read_text(encoding="utf-8")
    for path in LAYOUTS:
        assert path.name in readme, f"{path.name}: source and licence not recorded in README.md"


@pytest.mark.parametrize("path", LAYOUTS, ids=[p.stem for p in LAYOUTS])
def test_only_the_new_orders_are_read(path: Path) -> None:
    body = expand(path.read_text(encoding="utf-8"), NEW, OLD, as_html=path.suffix == ".html")
    letter = parse_letter(as_mail(path, body))
    reading = read_commands(letter.subject, letter.command_text, SPECS)
    orders = [c for c in reading.commands if c.name == "ORDERS"]
    assert len(orders) == 1, letter.command_text
    assert [line.text.strip() for line in orders[0].block] == NEW[1:-1], letter.command_text
    assert [c.name for c in reading.commands] == ["ORDERS"], letter.command_text
    # Nothing the player did not write is quoted back: only the prose the fixture's writer typed.
    prose = EXPECTED.get(path.stem, {}).get("prose", [])
    assert [line.text.strip() for line in reading.unknown] == prose, letter.command_text
