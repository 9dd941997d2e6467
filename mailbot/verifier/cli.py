# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a mailbot game archive with nothing but the Python standard library.

    python3 verify.py DIR                         (DIR holds game.json, verify.py and verifier/)
    python3 verify.py DIR --letters MAILBOX       (also your own letters: an mbox file or a Maildir)
    python3 verify.py DIR --letters IN --sent OUT (and the letters you sent: your Sent folder)
    python3 verify.py chain GAME SEAT             (your dice chain's CHAIN line, for your JOIN letter)
    python3 verify.py reveal GAME SEAT ROUND      (the REVEAL line for a step's round)

It re-implements, from the published byte-exact specification and NOT by
importing mailbot, everything a player needs to trust the moderator:

* the event chain is unbroken; every step it opened or resolved (each attempt
  of a step rolled back and played again, too) is in the archive and the
  other way round, with the commitment it logged;
* every revealed seed matches that commitment, and a finished game has
  revealed every seed;
* the players' entropy of each step is re-derived from the chain's ``entropy``
  entries, and the orders archived for a step hash to the digest the dice
  were keyed with (and to the salted commitments the chain logged);
* every logged roll is re-derived from seed, entropy, orders digest, step,
  label and counter, and the roll log is exactly the one the chain committed
  to when the step resolved (no roll missing, added or moved);
* the step seeds come from the game's seed chain: the step attempts opened
  as rounds 1, 2, 3... without a gap, and every revealed seed hashes, round
  by round, to the anchor the game was created with (in the welcome letter),
  so the moderator could neither pick, skip nor re-draw a seed;
* every seat's REVEAL links to the anchor of its CHAIN, and a step with
  chained seats was rolled with their reveals only (dice version 3: no
  Message-ID, NONCE or order wording in its dice);
* every sealed value and salt gives its receipt, and the receipt is the one
  the chain logged when the value was sealed;
* every report is the text whose salted hash the chain logged, at the chain
  head it states, and every report the chain logged is in the archive;
* every report's HTML part and map kept in the archive are the ones whose
  salted hashes the chain logged with the report (the part as its letter's
  page shows it, once the page's stylesheets and swapped tags are put back;
  its text as its step's page shows it, where game.json names that page);
* the pages a reader sees (index.html, dice.html, gm.html, press.html,
  steps/*.html) show each fact of game.json they mark (``data-fact``: the
  result, every roll's faces and total, every seat's orders...) as game.json
  has it, and lack none; headings and other wording are not facts; style.css
  is mailbot's own, byte for byte, and no page hides text with a style of
  its own; every report in mail.mbox is one the chain logged, word for word,
  and none is missing from it (format 4; ``facts.py``, ``archived_mail.py``);
* with ``--letters``: every report you received states a chain head that is
  in this chain and is in the archive word for word, and the closing letter's
  final head and length are this chain's (a rewritten chain cannot pass);
  each part of the letter (HTML, map, calendar entry) is one the chain logged;
* with ``--sent`` too: every letter the chain counts for your seat's dice
  (orders, a seal, NONCE, JOIN) is one you sent, else it was forged in your
  name; every letter of the game you sent with such a line is in the chain
  or was answered by the bot, else it was dropped before it was read.
  Your letters of this game are those under a tag (as your letters spell it)
  of which one states a chain head or commitment of this archive and whose
  code is the game's (SA of [SA-1]: the game the chain was created for); the
  archive's own tag is not used, and finding no letter at all is a failure.
  Letters under another tag are another game's: counted, said once, not checked.

``chain`` and ``reveal`` ask for your passphrase (never stored, never sent) and
print the line to paste into your letter; use the same GAME (the game number)
and SEAT every time, and a passphrase of your own for each game.

Prints one ``FAILED: ...`` line per problem and ends with
``verify: <n> rolls, <n> ok, <k> failed`` where ``<k>`` counts every FAILED
line; exits 1 if there is any. A game.json that cannot be read (not JSON, not
UTF-8) or whose records lack a field or hold the wrong kind of value fails the
same way, each problem a line naming the field.

Saving your letters: in Thunderbird select the game's letters and use
"Save As" (one .eml each) into an empty folder, or use the ImportExportTools
add-on to export the folder as mbox; in mutt, ``s`` (save) into an mbox file;
on a server with a Maildir, point ``--letters`` at the Maildir folder; from
Gmail, Google Takeout exports a label as mbox. A folder of ``.eml`` files is
read too.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from .checker import verify
from .rules import CHAIN_LENGTH, hashed, seat_root
from .shape import read_game

#: the formats of game.json this file reads (2: a report's text and HTML part may be on its
#: pages; 3: a letter's page may keep its style attributes in the site's stylesheet, a map a
#: label's halo in the label and its texts' attributes in the site's stylesheet; 4: the pages mark
#: the facts they show, checked with style.css and mail.mbox: ``facts``, ``archived_mail``)
FORMATS = ("mailbot-archive-1", "mailbot-archive-2", "mailbot-archive-3", "mailbot-archive-4")


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=Path(argv[0]).name if argv else "verify.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("archive", type=Path, help="the archive folder (it holds game.json)")
    parser.add_argument(
        "--letters", type=Path, metavar="MAILBOX", help="your letters: an mbox file, a Maildir or .eml folder"
    )
    parser.add_argument(
        "--sent", type=Path, metavar="MAILBOX", help="the letters you sent (with --letters): your Sent folder"
    )
    return parser.parse_args(argv[1:])


def secret_line(steps: int, rolls: int) -> str:
    """Why dice are not checked yet: the game runs and their seeds are secret until it ends."""
    if rolls:
        return f"not yet verifiable: {rolls} rolls of {steps} resolved step(s) whose seeds are still secret"
    return (
        f"not yet verifiable: the dice of {steps} resolved step(s): while the game runs their seeds"
        " and rolls stay secret (the rolls would tell what a side has not seen); run verify again"
        " on the archive published when the game ends"
    )


def other_games_line(counts: dict[str, int]) -> str:
    """The letters given with --letters that are of other games: said once, never checked."""
    total = sum(counts.values())
    games = "another game" if len(counts) == 1 else "other games"
    tags = ", ".join(sorted(counts))
    return f"letters: {total} {'is' if total == 1 else 'are'} of {games} ({tags}), not checked"


def passphrase() -> str:
    """The player's passphrase: asked for at a terminal, else the first line of standard input."""
    if sys.stdin.isatty():
        return getpass.getpass("Passphrase (never stored, never sent): ")
    return sys.stdin.readline().rstrip("\n")


def chain_line(argv: list[str]) -> int:
    """``chain GAME SEAT`` and ``reveal GAME SEAT ROUND``: the line to paste into a letter."""
    parser = argparse.ArgumentParser(
        prog=f"verify.py {argv[1]}",
        description="Print your dice chain's CHAIN line (send it with JOIN) or a step's REVEAL line.",
    )
    parser.add_argument("game", help="the game number, the same every time")
    parser.add_argument("seat", help="your seat")
    if argv[1] == "reveal":
        parser.add_argument("round", type=int, help="the round the step's report names")
    args = parser.parse_args(argv[2:])
    k = getattr(args, "round", 0)
    if not 0 <= k < CHAIN_LENGTH:
        print(f"verify.py: a round is 1 to {CHAIN_LENGTH - 1}", file=sys.stderr)
        return 2
    words = passphrase()
    if len(words) < 12:
        print("verify.py: use a passphrase of at least 12 characters (four words or more)", file=sys.stderr)
        return 2
    print(seat_line(seat_root(words, args.game, args.seat), k, reveal=argv[1] == "reveal"))
    return 0


def seat_line(root: bytes, k: int, *, reveal: bool) -> str:
    """The line to send from the chain of ``root``: ``REVEAL k`` with round ``k``'s value, or
    ``CHAIN`` with the anchor (round 0)."""
    value = hashed(root, CHAIN_LENGTH - k).hex()
    return f"REVEAL {k} {value}" if reveal else f"CHAIN {value}"


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] in ("chain", "reveal"):
        return chain_line(argv)
    args = arguments(argv)  # --help and a wrong call end here (exit 0 and 2), as argparse does
    if not (args.archive / "game.json").is_file():
        print(f"verify.py: no game.json in {args.archive}", file=sys.stderr)
        return 2
    for given, path in (("--letters", args.letters), ("--sent", args.sent)):
        if path is not None and not path.exists():
            print(f"verify.py: {given} {path}: no such mailbox, folder or file", file=sys.stderr)
            return 2
    data, unreadable = read_game(args.archive / "game.json")
    if data is None:  # a damaged archive fails like any other, with the one problem it has
        print(f"FAILED: {unreadable}")
        print("verify: 0 rolls, 0 ok, 1 failed")
        return 1
    known = data.get("format")
    if known not in FORMATS:
        print(
            f"verify.py: {args.archive / 'game.json'} is of format {known!r}; this verify.py reads "
            f"{', '.join(FORMATS)}: use the verify.py exported with that archive",
            file=sys.stderr,
        )
        return 2
    checker = verify(args.archive, args.letters, args.sent)
    for problem in checker.problems:
        print(f"FAILED: {problem}")
    if checker.secret_steps:
        print(secret_line(checker.secret_steps, checker.unrevealed))
    if args.letters is not None:
        print(f"letters: {checker.letters} of this game checked")
        if checker.other_games:
            print(other_games_line(checker.other_games))
    print(f"verify: {checker.rolls} rolls, {checker.ok} ok, {len(checker.problems)} failed")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
