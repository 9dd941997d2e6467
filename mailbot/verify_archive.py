#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a mailbot game archive with nothing but the Python standard library.

    python3 verify.py DIR                         (DIR holds game.json; this file is copied there)
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
* with ``--letters``: every report you received states a chain head that is
  in this chain and is in the archive word for word, and the closing letter's
  final head and length are this chain's (a rewritten chain cannot pass);
  each part of the letter (HTML, map, calendar entry) is one the chain logged;
* with ``--sent`` too: every letter the chain counts for your seat's dice
  (orders, a seal, NONCE, JOIN) is one you sent, else it was forged in your
  name; every letter of the game you sent with such a line is in the chain
  or was answered by the bot, else it was dropped before it was read.
  Your letters of this game are those under a tag (as your letters spell it)
  of which one states a chain head or commitment of this archive; the
  archive's own tag is not used, and finding no letter at all is a failure.

``chain`` and ``reveal`` ask for your passphrase (never stored, never sent) and
print the line to paste into your letter; use the same GAME (the game number)
and SEAT every time, and a passphrase of your own for each game.

Prints one ``FAILED: ...`` line per problem and ends with
``verify: <n> rolls, <n> ok, <k> failed`` where ``<k>`` counts every FAILED
line; exits 1 if there is any.

Saving your letters: in Thunderbird select the game's letters and use
"Save As" (one .eml each) into an empty folder, or use the ImportExportTools
add-on to export the folder as mbox; in mutt, ``s`` (save) into an mbox file;
on a server with a Maildir, point ``--letters`` at the Maildir folder; from
Gmail, Google Takeout exports a label as mbox. A folder of ``.eml`` files is
read too.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import getpass
import hashlib
import hmac
import html
import json
import mailbox
import re
import struct
import sys
from collections.abc import Iterator
from email.message import EmailMessage, Message
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
ORDERS_TAG = "mailbot-orders-v1"
DICE_TAG = "mailbot-dice-v1"
ENTROPY_TAG = "mailbot-entropy-v2"
SALT_TAG = "mailbot-salted-v1"
STEP_SALT_TAG = "mailbot-step-salt-v1"
SEAT_TAG = "mailbot-seat-chain-v1"
REVEALS_TAG = "mailbot-reveals-v1"
SEED_TAG = "mailbot-seed-commitment-v1"
CHAIN_LENGTH = 10_000
PBKDF2_ROUNDS = 200_000
CHUNKS = struct.Struct(">8I")
#: where game.json's map names a board layer kept once for the game (``map_layers``)
LAYER_REF = re.compile(
    r'<g data-layer-ref="sha256:([0-9a-f]{64})" data-layer="[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?" />'
)
#: where a page's map shows a board layer as a picture of its own (``steps/layers``)
PICTURED_LAYER = re.compile(
    r'<image href="(?:\.\./)*layers/([0-9a-f]{64})\.svg" x="0" y="0" width="[^"]*" height="[^"]*" />'
)
#: where a letter's page links a stylesheet that stood in its HTML part as a ``<style>`` block
STYLE_LINK = re.compile(r'<link rel="stylesheet" href="(?:\.\./)*styles/([0-9a-f]{64})\.css"([^<>]*)>')
#: the formats of game.json this file reads (2: a report's text and HTML part may be on its pages)
FORMATS = ("mailbot-archive-1", "mailbot-archive-2")
HEAD_LINE = re.compile(r"Game log chain head: ([0-9a-f]{64})")
FINAL_LINE = re.compile(r"Final chain head: ([0-9a-f]{64})")
ENTRIES_LINE = re.compile(r"Entries: (\d+)")
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
GAME_TAG = re.compile(r"\[([A-Za-z]{2}-\d+)[\] ]")
CONTRIBUTES = re.compile(r"^\s*(ORDERS|SEAL|NONCE|JOIN|CHAIN|REVEAL)\b", re.IGNORECASE | re.MULTILINE)
DICE_KINDS = ("entropy", "reveal", "dice-chain")  # entries that count a letter for a seat's dice
ORDER_KINDS = ("orders", "orders-replaced", "orders-carried")


def s(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def orders_digest(orders: dict[str, list[str]]) -> str:
    parts = [s(ORDERS_TAG)]
    for seat in sorted(orders):
        lines = orders[seat]
        parts.append(s(seat) + len(lines).to_bytes(4, "big"))
        parts.extend(hashlib.sha256(line.encode("utf-8")).digest() for line in lines)
    return sha(b"".join(parts))


def player_entropy(contributions: list[tuple[str, str, str]]) -> str:
    data = s(ENTROPY_TAG) + len(contributions).to_bytes(4, "big")
    return sha(data + b"".join(s(seat) + s(mid) + s(nonce) for seat, mid, nonce in sorted(contributions)))


def dice_key(seed: bytes, entropy: str) -> bytes:
    return hmac.new(seed, s(ENTROPY_TAG) + s(entropy), hashlib.sha256).digest()


def hashed(value: bytes, times: int) -> bytes:
    for _ in range(times):
        value = hashlib.sha256(value).digest()
    return value


def seat_root(passphrase: str, game: str, seat: str) -> bytes:
    salt = s(SEAT_TAG) + s(game) + s(seat.lower())
    return hashlib.pbkdf2_hmac("sha256", passphrase.encode("utf-8"), salt, PBKDF2_ROUNDS)


def reveals_digest(reveals: dict[str, str]) -> str:
    data = s(REVEALS_TAG) + len(reveals).to_bytes(4, "big")
    return sha(data + b"".join(s(seat) + s(reveals[seat]) for seat in sorted(reveals)))


def links(value: str, k: int, known: str, j: int) -> bool:
    """``value`` (round ``k``) hashes up to ``known`` (round ``j`` < ``k``, 0: the anchor)."""
    hex64 = re.compile(r"^[0-9a-f]{64}$")
    if not (isinstance(value, str) and hex64.match(value) and hex64.match(known) and 0 <= j < k):
        return False
    return hashed(bytes.fromhex(value), k - j).hex() == known


def salted(content: str, salt: bytes) -> str:
    return sha(s(SALT_TAG) + salt + content.encode("utf-8"))


def step_salt(seed: bytes, step: str) -> bytes:
    return hmac.new(seed, s(STEP_SALT_TAG) + s(step), hashlib.sha256).digest()


def faces(
    seed: bytes, key: tuple[str, str, str], sides: int, count: int, counter: int
) -> tuple[list[int], int]:
    """The faces of one roll: ``seed`` is the HMAC key, ``key`` is (step, orders digest, label)."""
    step, digest, label = key
    limit = 2**32 - (2**32 % sides)
    prefix = s(DICE_TAG) + s(step) + s(digest) + s(label)
    found: list[int] = []
    while len(found) < count:
        block = hmac.new(seed, prefix + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
        for x in CHUNKS.unpack(block):
            if x < limit:
                found.append(x % sides + 1)
                if len(found) == count:
                    break
    return found, counter


def part_hash(data: bytes, maintype: str) -> str:
    """One part of a letter; a text part's line ends do not count (mail rewrites them)."""
    return sha(b"\n".join(data.splitlines()) if maintype == "text" else data)


def letter_parts(msg: Message) -> dict[str, str]:
    """Every part of a letter but its plain text, by name (``text/html``, an attachment's file
    name), as ``part_hash`` gives it."""
    found: dict[str, str] = {}
    for part in msg.walk():
        data = part.get_payload(decode=True)
        if part.is_multipart() or not isinstance(data, bytes):
            continue
        attached = part.get_filename() is not None
        if part.get_content_type() == "text/plain" and not attached:
            continue
        found[part.get_filename() or part.get_content_type()] = part_hash(data, part.get_content_maintype())
    return found


def sent_html(folder: Path, name: str, swaps: list[list[str]]) -> str | None:
    """A report's HTML part as sent, from the page that shows it (game.json's ``html_file``):
    each stylesheet under ``steps/styles`` put back as the ``<style>`` block it was (when the
    file is the one its name's digest says), then each tag swapped for the page put back as
    sent (``html_swaps``, each shown once on the page); None when the page is missing or
    outside the archive."""
    path = folder / name
    if ".." in Path(name).parts or Path(name).is_absolute() or not path.is_file():
        return None

    def style(found: re.Match[str]) -> str:
        css = folder / "steps" / "styles" / f"{found.group(1)}.css"
        text = css.read_bytes().decode("utf-8", "replace") if css.is_file() else ""
        whole = sha(text.encode("utf-8")) == found.group(1)
        return f"<style{found.group(2)}>{text}</style>" if whole else found.group(0)

    text = STYLE_LINK.sub(style, path.read_bytes().decode("utf-8", "replace"))
    for sent, shown in reversed(swaps):
        if isinstance(sent, str) and isinstance(shown, str) and shown and text.count(shown) == 1:
            text = text.replace(shown, sent)
    return text


def page_text(folder: Path, ref: str) -> str | None:
    """A report's text as its step's page shows it (game.json's ``text_file``: the page and the
    letter's anchor, ``steps/T3.orders.html#letter-12``): the first ``<pre>`` of that letter,
    its HTML escapes undone; None when the page or the letter is not there."""
    name, _, anchor = ref.partition("#")
    path = folder / name
    if ".." in Path(name).parts or Path(name).is_absolute() or not path.is_file():
        return None
    page = path.read_bytes().decode("utf-8", "replace")
    start = page.find(f'<article class="letter" id="{anchor}">')
    end = page.find("</article>", start)
    opened = page.find("<pre>", start, end)
    closed = page.find("</pre>", opened, end)
    if min(start, end, opened, closed) < 0:
        return None
    return html.unescape(page[opened + len("<pre>") : closed])


def entry_hash(index: int, kind: str, payload: Any, prev: str) -> str:
    return sha(canonical([index, kind, prev, payload]).encode("utf-8"))


def normal_text(text: str) -> str:
    """A letter's text as compared: line ends and trailing blanks do not count."""
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n"))


class Checker:
    def __init__(self) -> None:
        self.rolls = self.ok = self.failed = self.unrevealed = self.letters = 0
        self.secret_steps = 0  # resolved steps whose seed (and, hiding information, rolls) wait for the end
        self.problems: list[str] = []
        self.chain_ok = True
        self.entries: list[dict[str, Any]] = []
        self.report_parts: dict[int, dict[str, str] | None] = {}  # report number: its logged parts
        self.received: list[Message] = []  # the player's letters of this game
        self.seats: set[str] = set()  # the seat(s) those letters reported to
        self.rounds: dict[tuple[Any, Any], tuple[int, Any]] = {}  # (step, attempt): (entry, round)
        self.anchors: dict[str, list[tuple[int, str]]] = {}  # seat: each player's (entry, anchor)
        self.ended: dict[str, list[int]] = {}  # seat: entries that ended its chain (REPLACE)
        self.closed: dict[Any, int] = {}  # set-up attempt: the entry that closed its anchors
        self.server_anchor = ""  # the game's seed chain (none before dice chains)
        self.map_layers: dict[str, str] = {}  # game.json's board layers of the maps, by digest
        self.folder = Path(".")  # the archive's folder

    def fail(self, text: str) -> None:
        self.problems.append(text)

    # -- the chain -----------------------------------------------------------------

    def chain(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        prev = GENESIS
        for n, entry in enumerate(entries):
            try:
                recomputed = entry_hash(n, entry["kind"], entry["payload"], prev)
            except (TypeError, ValueError):
                recomputed = ""
            if entry["index"] != n or entry["prev_hash"] != prev or entry["hash"] != recomputed:
                self.fail(
                    f"event chain: entry {n} ({entry['kind']}) is altered; later entries cannot be trusted"
                )
                self.chain_ok = False
                return
            prev = entry["hash"]

    def logged(
        self, kind: str | tuple[str, ...], step: str, attempt: int | None = None
    ) -> list[dict[str, Any]]:
        kinds = (kind,) if isinstance(kind, str) else kind
        return [
            e["payload"]
            for e in self.entries
            if e["kind"] in kinds
            and e["payload"].get("step") == step
            and (attempt is None or e["payload"].get("attempt") == attempt)
        ]

    # -- the dice chains ---------------------------------------------------------------

    def dice_chains(self) -> None:
        """The server's seed chain links every step attempt's commitment to the game's anchor,
        round after round; every seat's reveal links to its anchor (``core.hashchain``)."""
        created: dict[str, Any] = next(
            (e["payload"] for e in self.entries if e["kind"] == "game-created"), {}
        )
        opened = [(n, e["payload"]) for n, e in enumerate(self.entries) if e["kind"] == "step-opened"]
        anchor = created.get("server_anchor")
        if anchor is None:
            if any("round" in p for _, p in opened):
                self.fail("the steps name rounds of a seed chain, but the game logged no anchor for it")
            return
        self.server_anchor = str(anchor)
        for k, (_, p) in enumerate(opened, 1):
            if p.get("round") != k:
                self.fail(
                    f"step {p.get('step')} (attempt {p.get('attempt')}): opened as round {p.get('round')} "
                    f"of the seed chain, not {k}: a seed was skipped or drawn outside the chain"
                )
        self.rounds = {(p.get("step"), p.get("attempt")): (n, p.get("round")) for n, p in opened}
        self.seat_chains()

    def seat_chains(self) -> None:
        """Each seat's anchors (one a player: a REPLACE ends the chain), the set-up's closing
        entry, and every reveal against the chain that counts for its step."""
        last: dict[tuple[str, int], tuple[int, str]] = {}  # (seat, anchor's entry): its last element
        for n, e in enumerate(self.entries):
            p, seat = e["payload"], str(e["payload"].get("seat"))
            if e["kind"] == "dice-chain":
                self.anchor_logged(n, seat, str(p.get("anchor")), last)
            elif e["kind"] == "dice-chain-ended":
                self.chain_ended(n, seat)
            elif e["kind"] == "setup-reveals":
                self.setup_closed(n, p)
            elif e["kind"] == "reveal":
                self.reveal_logged(n, seat, p, last)

    def anchor_logged(
        self, n: int, seat: str, anchor: str, last: dict[tuple[str, int], tuple[int, str]]
    ) -> None:
        if self.chain_at(seat, n) is not None:
            self.fail(f"{seat}'s dice chain anchor was logged again (entry {n}): it cannot change")
            return
        self.anchors.setdefault(seat, []).append((n, anchor))
        last[(seat, n)] = (0, anchor)

    def chain_ended(self, n: int, seat: str) -> None:
        """Only a REPLACE (a new player for the seat) ends a seat's chain: the GM's entry before."""
        if self.chain_at(seat, n) is None or n == 0 or self.entries[n - 1]["kind"] != "gm-replace":
            self.fail(f"{seat}'s dice chain was ended (entry {n}) without the seat being handed over")
        self.ended.setdefault(seat, []).append(n)

    def chain_at(self, seat: str, at: int) -> tuple[int, str] | None:
        """The seat's chain counting for what was opened (or closed) at entry ``at``."""
        found = None
        for n, anchor in self.anchors.get(seat, []):
            if n < at and not any(n < end < at for end in self.ended.get(seat, [])):
                found = (n, anchor)
        return found

    def setup_closed(self, n: int, p: dict[str, Any]) -> None:
        """The set-up's anchors closed when every seat had joined: those logged and not ended then."""
        taken = {str(e["payload"].get("seat")) for e in self.entries[:n] if e["kind"] == "seat-taken"}
        seats: list[str] = next(
            (e["payload"].get("seats", []) for e in self.entries if e["kind"] == "game-created"), []
        )
        if not set(seats) <= taken:
            self.fail(f"the set-up's dice chains were closed (entry {n}) before every seat had joined")
        current = sorted(seat for seat in self.anchors if self.chain_at(seat, n) is not None)
        if p.get("seats") != current:
            self.fail(f"the set-up's chained seats (entry {n}) are not the seats with an anchor then")
        self.closed[p.get("attempt")] = n

    def reveal_logged(
        self, n: int, seat: str, p: dict[str, Any], last: dict[tuple[str, int], tuple[int, str]]
    ) -> None:
        k = p.get("round")
        where = f"the REVEAL of {seat} at {p.get('step')} (round {k})"
        at, round_ = self.counted_at(p.get("step"), p.get("attempt"))
        chain = self.chain_at(seat, at)
        if p.get("step") == "setup" and p.get("attempt") not in self.closed:
            self.fail(f"{where}: logged before every seat had joined, when no set-up reveal is taken")
        elif chain is None:
            self.fail(f"{where}: the seat had no dice chain for that step")
        elif round_ != k:
            self.fail(f"{where}: not the round its step opened as")
        elif not isinstance(k, int) or not links(str(p.get("value")), k, *self.known(last[(seat, chain[0])])):
            self.fail(f"{where}: does not link to the seat's anchor: made up")
        else:
            last[(seat, chain[0])] = (k, str(p["value"]))

    @staticmethod
    def known(element: tuple[int, str]) -> tuple[str, int]:
        """A chain's last known (round, value) as ``links`` takes it: (value, round)."""
        return element[1], element[0]

    def counted_at(self, key: Any, attempt: Any) -> tuple[int, Any]:
        """(entry before which anchors count, round) for a step attempt: where it opened, or for
        the set-up where its anchors were closed (-1: never, so none counts)."""
        at, round_ = self.rounds.get((key, attempt), (-1, None))
        if key == "setup" and round_ is not None:
            return self.closed.get(attempt, -1), round_
        return at, round_

    def chained(self, step: dict[str, Any]) -> dict[str, str] | None:
        """The step's chained seats (anchor logged before it opened, or before the set-up's
        anchors closed) and their reveals logged before it resolved; None: dice version 2."""
        at, round_ = self.counted_at(step["key"], step["attempt"])
        seats = (
            [seat for seat in self.anchors if self.chain_at(seat, at) is not None]
            if round_ is not None
            else []
        )
        if not seats:
            return None
        revealed = {
            str(p.get("seat")): str(p.get("value"))
            for kind, p in self.before_resolution(step)
            if kind == "reveal" and (p.get("step"), p.get("attempt")) == (step["key"], step["attempt"])
        }
        return {seat: revealed.get(seat, "") for seat in seats}

    # -- steps -----------------------------------------------------------------------

    def steps(self, steps: list[dict[str, Any]], finished: bool) -> None:
        archived = {(st["key"], st["attempt"]) for st in steps}
        for entry in self.entries:
            p = entry["payload"]
            if (
                entry["kind"] in ("step-opened", "step-resolved")
                and (p.get("step"), p.get("attempt")) not in archived
            ):
                self.fail(
                    f"step {p.get('step')} (attempt {p.get('attempt')}) is in the event chain "
                    "but missing from the archive"
                )
        for step in steps:
            self.step(step, finished)

    def step(self, step: dict[str, Any], finished: bool) -> None:
        key, attempt = step["key"], step["attempt"]
        name = f"step {key} (attempt {attempt})"
        opened = self.logged("step-opened", key, attempt)
        if not opened:
            self.fail(f"{name}: the event chain never opened it")
        elif opened[0]["commitment"] != step["commitment"]:
            self.fail(f"{name}: its commitment differs from the one logged when it opened")
        resolved = self.logged("step-resolved", key, attempt)
        if step["state"] == "resolved" and not resolved:
            self.fail(f"{name}: marked resolved, but the event chain never resolved it")
        if not resolved:
            if step["rolls"]:
                self.fail(f"{name}: it has rolls but the event chain never resolved it")
            return
        if step["state"] == "open":
            self.fail(f"{name}: the event chain resolved it, but the archive shows it open")
        self.order_sets(name, step)
        self.sealed(name, step)
        if step.get("seed") is None:
            if finished:
                self.fail(f"{name}: the game is over but its seed is withheld")
            else:
                self.unrevealed += len(step["rolls"])
                self.secret_steps += 1
            return
        self.revealed(name, step, resolved[0])

    def revealed(self, name: str, step: dict[str, Any], resolved: dict[str, Any]) -> None:
        seed = bytes.fromhex(step["seed"])
        round_ = self.rounds.get((step["key"], step["attempt"]), (-1, None))[1]
        if (sha(s(SEED_TAG) + seed) if round_ is not None else sha(seed)) != step["commitment"]:
            self.fail(f"{name}: the seed does not match its commitment")
        if isinstance(round_, int) and hashed(seed, round_).hex() != self.server_anchor:
            self.fail(f"{name}: its seed is not round {round_} of the seed chain the game began with")
        digest = orders_digest(step["orders"])
        if digest != step["orders_digest"]:
            self.fail(f"{name}: the archived orders do not hash to the digest the dice used")
        salt = step_salt(seed, step["key"])
        if "orders" in resolved and resolved["orders"] != salted(step["orders_digest"], salt):
            self.fail(f"{name}: its orders digest differs from the one logged when it resolved")
        if "orders_digest" in resolved and resolved["orders_digest"] != step["orders_digest"]:
            self.fail(f"{name}: its orders digest differs from the one logged when it resolved")
        chained = self.chained(step)
        if chained is not None:
            self.chained_dice(name, step, resolved, seed, chained)
        else:
            if resolved.get("dice") is not None:
                self.fail(f"{name}: rolled as dice version {resolved['dice']}, but no seat had a dice chain")
            contributions = [
                (str(p["seat"]), str(p["message_id"]), str(p["nonce"]))
                for p in self.logged("entropy", step["key"], step["attempt"])
            ]
            entropy = player_entropy(contributions)
            if "entropy" in resolved and resolved["entropy"] != entropy:
                self.fail(
                    f"{name}: the players' entropy logged at resolution is not the letters' in the chain"
                )
            key = dice_key(seed, entropy) if "entropy" in resolved else seed
            self.rolls_of(name, key, step, step["orders_digest"])
        if "roll_log" in resolved:
            if resolved["roll_log"] != salted(sha(canonical(step["rolls"]).encode("utf-8")), salt):
                self.fail(f"{name}: its roll log is not the one committed to when it resolved")
        elif resolved.get("rolls", len(step["rolls"])) != len(step["rolls"]):
            self.fail(f"{name}: {len(step['rolls'])} rolls archived, {resolved['rolls']} logged")

    def chained_dice(
        self, name: str, step: dict[str, Any], resolved: dict[str, Any], seed: bytes, chained: dict[str, str]
    ) -> None:
        """Dice version 3: the server's element and the chained seats' reveals, nothing else."""
        entropy = reveals_digest(chained)
        if resolved.get("dice") != 3:
            self.fail(f"{name}: seats had dice chains, but the dice were not rolled with their reveals alone")
        elif resolved.get("entropy") != entropy:
            self.fail(f"{name}: the reveals its dice were rolled with are not the ones the chain logged")
        self.rolls_of(name, dice_key(seed, entropy), step, "")

    def rolls_of(self, name: str, key: bytes, step: dict[str, Any], digest: str) -> None:
        next_counter: dict[str, int] = {}
        for roll in step["rolls"]:
            self.rolls += 1
            where = (step["key"], digest, roll["label"])
            derived, after = faces(key, where, roll["sides"], roll["count"], roll["counter"])
            total = sum(roll["faces"]) + sum(roll["modifiers"].values())
            chained = next_counter.get(roll["label"], 0) == roll["counter"]
            if derived == roll["faces"] and total == roll["total"] and chained:
                self.ok += 1
            else:
                self.failed += 1
                self.fail(
                    f"{name}: roll {roll['label']} #{roll['counter']} does not re-derive "
                    f"(logged {roll['faces']}, derived {derived})"
                )
            next_counter[roll["label"]] = after

    def before_resolution(self, step: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(kind, payload) of the entries logged before the step's attempt resolved, in order."""
        found: list[tuple[str, dict[str, Any]]] = []
        for e in self.entries:
            p = e["payload"]
            if e["kind"] == "step-resolved" and (p.get("step"), p.get("attempt")) == (
                step["key"],
                step["attempt"],
            ):
                break
            found.append((e["kind"], p))
        return found

    def last_orders(self, step: dict[str, Any]) -> dict[str, str]:
        """Each seat's last order-set commitment logged for this attempt before it resolved."""
        last: dict[str, str] = {}
        for kind, p in self.before_resolution(step):
            if kind in ORDER_KINDS and (p.get("step"), p.get("attempt")) == (step["key"], step["attempt"]):
                last[str(p.get("seat"))] = str(p.get("commitment"))
        return last

    def last_seals(self, step: dict[str, Any]) -> dict[str, dict[str, str]]:
        """Each seat's last receipts ({label: receipt}) logged before this attempt resolved: its
        own SEAL letters while this attempt was open (a later attempt takes SEAL letters anew
        when the one before it was rolled back unopened), or the values carried over."""
        last: dict[str, dict[str, str]] = {}
        open_now = False
        for kind, p in self.before_resolution(step):
            if p.get("step") != step["key"]:
                continue
            if kind == "step-opened":
                open_now = p.get("attempt") == step["attempt"]
            elif kind == "sealed" and open_now:
                last[str(p["seat"])] = dict(p["receipts"])
            elif kind == "sealed-carried" and p.get("attempt") == step["attempt"]:
                last = {seat: dict(found) for seat, found in p["receipts"].items()}
        return last

    def order_sets(self, name: str, step: dict[str, Any]) -> None:
        """The dice used each seat's LAST order set logged before the deadline, and no other."""
        last = self.last_orders(step)
        for seat, salt in sorted(step.get("salts", {}).items()):
            lines = step["orders"].get(seat, [])
            commitment = salted(orders_digest({seat: lines}), bytes.fromhex(salt))
            if seat not in last:
                self.fail(f"{name}: the orders of {seat} are not the ones logged when they were accepted")
            elif last[seat] != commitment:
                self.fail(f"{name}: the orders of {seat} are not the last ones he sent before it resolved")
        for seat in sorted(set(last) - set(step.get("salts", {}))):
            self.fail(f"{name}: the last orders logged for {seat} are not among the orders the dice used")

    def sealed(self, name: str, step: dict[str, Any]) -> None:
        """Every sealed value and salt must give its receipt, that receipt must be the last one the
        chain logged for the seat before the step resolved, and every logged seal is opened."""
        last = self.last_seals(step)
        archived = step.get("sealed", {})
        for seat, values in sorted(archived.items()):
            for label, item in sorted(values.items()):
                try:
                    salt = bytes.fromhex(item["salt"])
                except ValueError:
                    salt = b""
                if sha(item["value"].encode("utf-8") + salt) != item["receipt"]:
                    self.fail(f"{name}: the sealed {label} of {seat} does not give its receipt")
                if last.get(seat, {}).get(label) != item["receipt"]:
                    self.fail(
                        f"{name}: the receipt for {seat}'s {label} is not the one logged when sealed "
                        "(the last before it resolved)"
                    )
                if item.get("line") is not None and item["line"] not in step["orders"].get(seat, []):
                    self.fail(f"{name}: the sealed {label} of {seat} is not among the orders the dice used")
        for seat, receipts in sorted(last.items()):
            for label in sorted(set(receipts) - set(archived.get(seat, {}))):
                self.fail(f"{name}: {seat} sealed a {label} (logged) that the archive never opens")

    # -- reports and letters ------------------------------------------------------------

    def reports(self, reports: list[dict[str, Any]]) -> None:
        """Every archived report is a text the chain logged, where it says; none is missing."""
        logged = [(n, e) for n, e in enumerate(self.entries) if e["kind"] == "report"]
        used: set[int] = set()
        for n, report in enumerate(reports):
            text_hash = sha(report["text"].encode("utf-8"))
            salt = report.get("salt") or ""
            wanted = salted(text_hash, bytes.fromhex(salt)) if salt else text_hash
            match = next(
                (
                    (i, e)
                    for i, e in logged
                    if i not in used
                    and wanted in (e["payload"].get("commitment"), e["payload"].get("sha256"))
                ),
                None,
            )
            if match is None:
                self.fail(f"report {n} (to {report['seat'] or 'the GM'}, {report['step']}) was altered")
                continue
            used.add(match[0])
            self.report_parts[n] = match[1]["payload"].get("parts")
            self.archived_parts(n, report)
            stated = HEAD_LINE.search(report["text"])
            if match[1]["prev_hash"] != report["chain_head"] or (
                stated and stated.group(1) != report["chain_head"]
            ):
                self.fail(
                    f"report {n} (to {report['seat']}): the chain head it states is not where it was logged"
                )
        for i, entry in logged:
            if i not in used:
                p = entry["payload"]
                self.fail(
                    f"the chain logs a report to {p.get('seat')} at {p.get('step')} that the archive lacks"
                )

    def archived_parts(self, n: int, report: dict[str, Any]) -> None:
        """The report's HTML part and map kept in the archive are the ones the chain logged."""
        parts = self.report_parts.get(n)
        if parts is None:  # logged before every part was
            return
        salt = bytes.fromhex(report.get("salt") or "")
        svg = self.whole_map(self.map_of(report))
        kept = {"text/html": self.html_of(report), "map.svg": svg or None}
        for name, content in kept.items():
            if content is None and name not in parts:
                continue
            made = salted(part_hash(str(content or "").encode("utf-8"), "text"), salt)
            if parts.get(name) != made:
                self.fail(f"report {n} (to {report['seat']}): its {name} is not the one logged when sent")

    def texts(self, reports: list[dict[str, Any]]) -> None:
        """Each report's text that game.json names on its step's page (``text_file``) read there,
        as if game.json held it; a text not found is said, and checked as empty."""
        for n, report in enumerate(reports):
            if "text" not in report:
                ref = str(report.get("text_file") or "")
                text = page_text(self.folder, ref) if ref else None
                if text is None:
                    self.fail(f"report {n} (to {report.get('seat') or 'the GM'}): its text {ref} is missing")
                report["text"] = text or ""

    def html_of(self, report: dict[str, Any]) -> str | None:
        """A report's HTML part as game.json holds it, or as its page gives it back (``html_file``)."""
        name = report.get("html_file")
        if not name:
            return report.get("html")
        html = sent_html(self.folder, str(name), list(report.get("html_swaps") or []))
        if html is None:
            self.fail(f"the letter page {name} is missing")
        return html

    def map_of(self, report: dict[str, Any]) -> str:
        """A report's map as ``game.json`` keeps it, or as the page's file it names (``map_file``:
        the hour's overlay, its board layers pictures of their own under ``steps/layers``), put
        back together as one SVG; a file outside the archive or missing is no map."""
        name = report.get("map_file")
        if not name:
            return str(report.get("map_svg") or "")
        path = self.folder / str(name)
        if ".." in Path(str(name)).parts or not path.is_file():
            self.fail(f"the map file {name} is missing")
            return ""
        return PICTURED_LAYER.sub(self.layer_text, path.read_text(encoding="utf-8"))

    def layer_text(self, found: re.Match[str]) -> str:
        """The layer a map's picture shows (its file under ``steps/layers``), as the map's text
        held it; the picture itself when its file is not that layer's."""
        path = self.folder / "steps" / "layers" / f"{found.group(1)}.svg"
        if not path.is_file():
            return found.group(0)
        content = path.read_text(encoding="utf-8")
        start = content.find(">\n", content.find("<svg")) + 2
        text = content[start : content.rfind("\n</svg>")]
        return text if sha(text.encode("utf-8")) == found.group(1) else found.group(0)

    def whole_map(self, svg: str) -> str:
        """A report's map with its board layers put back (``game.json`` keeps each once, under
        ``map_layers``, and the map names it by digest); a layer whose text is not its digest's
        is not put back, so the map fails its check."""
        layers = self.map_layers

        def layer(found: re.Match[str]) -> str:
            text = layers.get(found.group(1))
            whole = text is not None and sha(text.encode("utf-8")) == found.group(1)
            return text if whole and text is not None else found.group(0)

        return LAYER_REF.sub(layer, svg)

    def sent_parts(self, subject: str, msg: Message, n: int, salt: str) -> None:
        """Every part of a report letter as received is one the chain logged, and none is missing."""
        parts = self.report_parts.get(n)
        if parts is None:
            return
        got = {name: salted(h, bytes.fromhex(salt)) for name, h in letter_parts(msg).items()}
        for name in sorted(set(got) | (set(parts) - {"map.svg"})):
            if got.get(name) != parts.get(name):
                self.fail(f"letter {subject!r}: its part {name} is not the one the chain logged")

    def own_letters(self, data: dict[str, Any], messages: list[Message]) -> None:
        """The player's letters: each report's head in this chain, its text in the archive.

        Which letters are of this game is read from the letters, never from the archive: the
        letters under one tag (as their own subjects spell it) are this game's when any of them
        states a chain head or a commitment this chain holds. None at all is a failure: either
        the mailbox holds no letter of the game, or the chain it states was rewritten.
        """
        reports = data.get("reports", [])
        texts = {(r["chain_head"], normal_text(r["text"])): n for n, r in enumerate(reports)}
        self.received = self.of_this_game(messages)
        for msg in self.received:
            subject = str(msg.get("Subject", ""))
            body = letter_text(msg)
            final = FINAL_LINE.search(body)
            if final:
                self.letters += 1
                self.closing(subject, final.group(1), ENTRIES_LINE.search(body))
                continue
            head = HEAD_LINE.search(body)
            if head is None:
                continue
            self.letters += 1
            if head.group(1) not in self.hashes():
                self.fail(
                    f"letter {subject!r}: its chain head {head.group(1)[:16]}... "
                    "is not in the archive's chain"
                )
            n = texts.get((head.group(1), normal_text(body)))
            if n is None:
                self.fail(f"letter {subject!r}: the archive does not account for this report")
            else:
                self.sent_parts(subject, msg, n, reports[n].get("salt") or "")
                self.seats.add(str(reports[n]["seat"]))
        if self.letters == 0:
            self.fail(
                "none of your letters states a chain head or commitment of this archive: "
                "the mailbox holds no report of this game, or the chain was rewritten"
            )

    def hashes(self) -> set[str]:
        return {GENESIS} | {e["hash"] for e in self.entries}

    def of_this_game(self, messages: list[Message]) -> list[Message]:
        known = self.hashes() - {GENESIS}
        for entry in self.entries:
            known |= set(HEX64.findall(canonical(entry["payload"])))
        groups: dict[str, list[Message]] = {}
        for n, msg in enumerate(messages):
            found = GAME_TAG.search(str(msg.get("Subject", "")))
            groups.setdefault(found.group(1).upper() if found else f"untagged {n}", []).append(msg)
        return [
            msg
            for letters in groups.values()
            if any(known & set(HEX64.findall(letter_text(m))) for m in letters)
            for msg in letters
        ]

    def sent_letters(self, messages: list[Message]) -> None:
        """The player's SENT letters against the chain: every letter that brought entropy for his
        seat (orders, a seal, NONCE, JOIN) must be one he sent (else it was forged in his name),
        and every letter of the game he sent with such a line must be in the chain, unless the
        bot answered it (a refusal, a late letter): else it was dropped before it was read."""
        if not self.seats:
            self.fail("--sent: no report in your letters names your seat; give --letters too")
            return
        sent = {message_id(m): m for m in messages}
        logged = self.forged(set(sent))
        answered = {r for m in self.received for r in angled(str(m.get("In-Reply-To", "")))}
        for mid, msg in sent.items():
            if self.of_game(msg) and CONTRIBUTES.search(letter_text(msg)) and mid not in logged | answered:
                self.fail(
                    f"the letter you sent {msg.get('Date', '(no date)')} ({msg.get('Subject', '')!r}) "
                    "is not in the chain and was never answered: dropped"
                )

    def forged(self, sent: set[str]) -> set[str]:
        """Flags each letter the chain counts for the player's seat that he did not send; returns
        the Message-IDs the chain counts for it."""
        logged: set[str] = set()
        for entry in self.entries:
            p = entry["payload"]
            if entry["kind"] in DICE_KINDS and p.get("seat") in self.seats and p.get("message_id"):
                if p["message_id"] not in sent and p["message_id"] not in logged:
                    self.fail(
                        f"the chain counts a letter for {p['seat']} at {p.get('step', 'joining')} that you "
                        f"did not send (Message-ID {p['message_id']}): forged in your name"
                    )
                logged.add(str(p["message_id"]))
        return logged

    def of_game(self, msg: Message) -> bool:
        """A sent letter is of this game by its tag or by answering one of the game's letters."""
        tags = {t.upper() for m in self.received for t in GAME_TAG.findall(str(m.get("Subject", "")))}
        if {t.upper() for t in GAME_TAG.findall(str(msg.get("Subject", "")))} & tags:
            return True
        named = set(angled(str(msg.get("In-Reply-To", "")) + str(msg.get("References", ""))))
        return bool(named & {message_id(m) for m in self.received})

    def closing(self, subject: str, head: str, entries: re.Match[str] | None) -> None:
        count = int(entries.group(1)) if entries else -1
        last = self.entries[-1]["hash"] if self.entries else GENESIS
        if head != last or count != len(self.entries):
            self.fail(
                f"letter {subject!r}: the final chain head and length you were sent "
                f"({head[:16]}..., {count} entries) are not the archive's "
                f"({last[:16]}..., {len(self.entries)})"
            )


def angled(value: str) -> list[str]:
    return re.findall(r"<([^<>\s]+)>", value)


def message_id(msg: Message) -> str:
    found = angled(str(msg.get("Message-ID", "")))
    return found[0] if found else ""


def letter_text(msg: Message) -> str:
    if isinstance(msg, EmailMessage):
        part = msg.get_body(preferencelist=("plain",))
        if part is not None and isinstance(part, EmailMessage):
            return str(part.get_content())
    payload = msg.get_payload(decode=True)
    return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


def read_letters(path: Path) -> Iterator[Message]:
    """The messages of an mbox file, a Maildir, or a folder of .eml files."""

    def parse(raw: bytes) -> Message:
        return email.message_from_bytes(raw, policy=email.policy.default)

    if path.is_dir() and (path / "cur").is_dir():
        box = mailbox.Maildir(path, factory=None, create=False)
        for key in box.iterkeys():
            yield parse(box.get_bytes(key))
    elif path.is_dir():
        for file in sorted(path.glob("*.eml")):
            yield parse(file.read_bytes())
    else:
        mbox = mailbox.mbox(path, create=False)
        for key in mbox.iterkeys():
            yield parse(mbox.get_bytes(key))


def verify(folder: Path, letters: Path | None = None, sent: Path | None = None) -> Checker:
    data = json.loads((folder / "game.json").read_text(encoding="utf-8"))
    checker = Checker()
    checker.chain(data["chain"])
    finished = data["game"].get("status") == "finished" or any(
        e["kind"] == "game-finished" for e in data["chain"]
    )
    if checker.chain_ok:
        checker.dice_chains()
    checker.steps(data["steps"], finished)
    checker.map_layers = dict(data.get("map_layers") or {})
    checker.folder = folder
    checker.texts(data.get("reports", []))
    checker.reports(data.get("reports", []))
    if letters is not None:
        checker.own_letters(data, list(read_letters(letters)))
    if sent is not None:
        checker.sent_letters(list(read_letters(sent)))
    return checker


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
    value = hashed(seat_root(words, args.game, args.seat), CHAIN_LENGTH - k).hex()
    print(f"REVEAL {k} {value}" if argv[1] == "reveal" else f"CHAIN {value}")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] in ("chain", "reveal"):
        return chain_line(argv)
    args = arguments(argv)  # --help and a wrong call end here (exit 0 and 2), as argparse does
    if not (args.archive / "game.json").is_file():
        print(f"verify.py: no game.json in {args.archive}", file=sys.stderr)
        return 2
    known = json.loads((args.archive / "game.json").read_text(encoding="utf-8")).get("format")
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
    print(f"verify: {checker.rolls} rolls, {checker.ok} ok, {len(checker.problems)} failed")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
