# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 17 "Tests and by mail": `mailbot demo --game flattop --scenario surface-demo` plays a night
surface battle with sealed BHT numbers, a submarine attack and a rescue of survivors by mail."""

from __future__ import annotations

import mailbox
import re
from email import message_from_bytes, policy
from pathlib import Path

from mailbot.demo.run import DemoResult, play_demo


def letters_of(played: DemoResult) -> dict[str, str]:
    """Each side's letters (the text parts, as one line: mail wraps them at 72 columns), found by
    the report they hold ("report for allied"), never by guessing which player got which seat."""
    sides: dict[str, str] = {}
    for kept in played.mailboxes:
        if not kept.address.startswith("player"):
            continue
        box = mailbox.mbox(kept.path, create=False)
        try:
            texts = [_text(bytes(message)) for message in box]
        finally:
            box.close()
        joined = " ".join(" ".join(text.split()) for text in texts)
        found = re.search(r"report for (allied|japanese)", joined)
        assert found, kept.address
        sides[found[1]] = joined
    assert set(sides) == {"allied", "japanese"}
    return sides


def _text(raw: bytes) -> str:
    message = message_from_bytes(raw, policy=policy.default)
    part = message.get_body(preferencelist=("plain",))
    return str(part.get_content()) if part is not None else ""


async def test_the_surface_demo_is_played_by_mail_to_its_end(tmp_path: Path) -> None:
    played = await play_demo(game="flattop", scenario="surface-demo", workdir=tmp_path)
    assert re.fullmatch(r"demo: .*, game \d+ finished", played.summary), played.summary
    battles = re.fullmatch(
        r"battles: air \d+, surface (\d+), sealed values (\d+), hours without mail \d+", played.battles
    )
    assert battles, played.battles
    surface, sealed = (int(n) for n in battles.groups())
    assert surface >= 1 and sealed >= 2, played.battles
    told = letters_of(played)
    for side in ("allied", "japanese"):
        # The sealed BHT numbers: the notice of the other side's, then both opened with their salts.
        other = "japanese" if side == "allied" else "allied"
        assert f"{other} has sealed a value for Turn 1 (0300, day 1): surface battle (bht)" in told[side]
        opened = r"Sealed values opened == allied bht: value [1-6], salt \w+, receipt \w+ japanese bht: value"
        assert re.search(opened, told[side])
        assert "Sealed BHT numbers opened: Allied" in told[side]
        assert "Surface battle at V-C26" in told[side]
    # The submarines' own report of their attack (27.10), and the oiler group's of being attacked.
    assert re.search(r"TF20 at V-F26: I-2\d (attacked enemy ships|could not attack)", told["japanese"])
    assert re.search(r"TF11 (at V-F26 was attacked by a submarine|attacked a submarine)", told["allied"])
    # Survivors in the water, seen by the ships in the hex, and picked up by mail.
    assert "survivor factor(s) in the water at V-C26" in told["allied"] + told["japanese"]
    assert re.search(r"\w+ picked up \d+ survivor factor\(s\)", told["allied"] + told["japanese"])
