# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo players' dice chains, kept the way a real player keeps his (README, "Dice nobody
can steer"): a passphrase of his own, and the shipped ``verify.py`` run for the CHAIN line of the
JOIN letter. The REVEAL lines a letter asks for (the round it names) come from the same verifier
code in this process, from the seat's stretched passphrase kept for the game: a subprocess for
each of a Flat Top demo's hundred reveals, stretching the passphrase again every time, cost a
quarter of the whole demo's CPU. A line that differed from verify.py's would not hash up to the
anchor verify.py gave, and the bot would refuse it."""

from __future__ import annotations

import asyncio
import functools
import re
import subprocess
import sys
from pathlib import Path

from mailbot import verify_archive
from mailbot.verifier.cli import seat_line
from mailbot.verifier.rules import seat_root

VERIFY = Path(verify_archive.__file__)  # the file every archive ships as verify.py
# What a letter asks for: the command line to run, ``python3 verify.py reveal GAME SEAT ROUND``.
ASKED = re.compile(r"verify\.py\s+reveal\s+(\d+)\s+(\S+)\s+(\d+)\b")


def passphrase(seed: str, address: str) -> str:
    """The player's passphrase: from the demo seed, so a replay sends the same lines."""
    return f"demo player {address} keeps seed {seed} to himself"


async def verify_line(phrase: str, *args: str) -> str:
    """What ``python3 verify.py ARGS`` prints, the passphrase typed on its standard input."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(VERIFY), *args],
        input=phrase + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


async def chain_line(phrase: str, game_id: int, seat: str) -> str:
    return await verify_line(phrase, "chain", str(game_id), seat)


async def asked_reveal(phrase: str, text: str) -> str:
    """The REVEAL line a letter asks for (``""`` when it asks for none)."""
    found = ASKED.search(text)
    if found is None:
        return ""
    game, seat, k = found.groups()
    return seat_line(_root(phrase, game, seat), int(k), reveal=True)


@functools.lru_cache(maxsize=64)
def _root(phrase: str, game: str, seat: str) -> bytes:
    """The seat's chain root: ``verify.py``'s stretching of the passphrase (PBKDF2), once a game."""
    return seat_root(phrase, game, seat)
