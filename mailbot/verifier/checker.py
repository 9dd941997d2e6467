# SPDX-License-Identifier: GPL-3.0-or-later
"""The whole check of an archive (:func:`verify`): the chain and steps (``steps.py``), then every
report against the text, HTML part and map the chain logged, and with a player's letters,
every letter he received and sent against the chain (:class:`Checker`)."""

from __future__ import annotations

import mailbox
import re
from collections.abc import Callable
from email.message import Message
from pathlib import Path
from typing import Any

from .archived_mail import mbox_problems
from .facts import game_problems, page_problems, stylesheet_problems
from .maps import label_halos, map_text_styles
from .pages import (
    CONTRIBUTES,
    ENTRIES_LINE,
    FINAL_LINE,
    GAME_TAG,
    HEAD_LINE,
    HEX64,
    LAYER_REF,
    PICTURED_LAYER,
    angled,
    letter_parts,
    letter_text,
    message_id,
    normal_text,
    page_text,
    read_letters,
    sent_html,
)
from .rules import DICE_KINDS, GENESIS, canonical, part_hash, salted, sha
from .shape import read_game, shape
from .steps import ChainChecker


class Checker(ChainChecker):
    """Every check of an archive: the chain's and steps' (:class:`ChainChecker`), the reports' and
    the player's letters'."""

    def __init__(self) -> None:
        super().__init__()
        self.letters = 0  # the player's letters of this game checked
        self.other_games: dict[str, int] = {}  # tag: the player's letters of another game, not checked
        self.report_parts: dict[int, dict[str, str] | None] = {}  # report number: its logged parts
        self.received: list[Message] = []  # the player's letters of this game
        self.seats: set[str] = set()  # the seat(s) those letters reported to
        self.map_layers: dict[str, str] = {}  # game.json's board layers of the maps, by digest
        self.folder = Path(".")  # the archive's folder

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
        # bytes not UTF-8 are a map that fails its check, not a reason to stop
        text = map_text_styles(self.folder, path.read_bytes().decode("utf-8", "replace"))
        return PICTURED_LAYER.sub(self.layer_text, label_halos(text))

    def layer_text(self, found: re.Match[str]) -> str:
        """The layer a map's picture shows (its file under ``steps/layers``), as the map's text
        held it; the picture itself when its file is not that layer's."""
        path = self.folder / "steps" / "layers" / f"{found.group(1)}.svg"
        if not path.is_file():
            return found.group(0)
        content = path.read_bytes().decode("utf-8", "replace")
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

        Which letters are of this game is read from the letters and the chain, never from the
        archive's tag (:meth:`of_this_game`). None at all is a failure: either the mailbox holds
        no letter of the game, or the chain it states was rewritten.
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
            code = self.game_code()
            under = f" under a tag of this game ({code}-...)" if code else ""
            self.fail(
                f"none of your letters{under} states a chain head or commitment of this archive: "
                "the mailbox holds no report of this game, or the chain was rewritten"
            )

    def hashes(self) -> set[str]:
        return {GENESIS} | {e["hash"] for e in self.entries}

    def of_this_game(self, messages: list[Message]) -> list[Message]:
        """The letters under one tag (as their own subjects spell it) are this game's when any of
        them states a chain head or a commitment this chain holds, and the tag's code is the
        game's (``SA`` of ``[SA-1]``: the first two letters of the game the chain was created for,
        as the bot writes it). The letters under every other tag are another game's: counted in
        ``other_games``, never checked (two games may share a commitment: the demo's games all
        draw their seeds from one seed)."""
        known = self.hashes() - {GENESIS}
        for entry in self.entries:
            known |= set(HEX64.findall(canonical(entry["payload"])))
        code = self.game_code()
        groups: dict[str, list[Message]] = {}
        for n, msg in enumerate(messages):
            found = GAME_TAG.search(str(msg.get("Subject", "")))
            groups.setdefault(found.group(1).upper() if found else f"untagged {n}", []).append(msg)
        ours: list[Message] = []
        for tag, letters in groups.items():
            tagged = not tag.startswith("untagged ")
            if (not tagged or not code or tag.startswith(f"{code}-")) and any(
                known & set(HEX64.findall(letter_text(m))) for m in letters
            ):
                ours += letters
            elif tagged and not (code and tag.startswith(f"{code}-")):
                # Under this game's code but stating no hash of its chain (a GM's notices): not
                # shown to be another game's, so not said to be.
                self.other_games[tag] = len(letters)
        return ours

    def game_code(self) -> str:
        """The code of the game's tag (``SA`` for Salt'n'Tar) from the game the chain was created
        for; "" when the chain names none."""
        created = [e["payload"] for e in self.entries if e["kind"] == "game-created"]
        plugin = created[0].get("plugin") if created else None
        return plugin[:2].upper() if isinstance(plugin, str) and len(plugin) >= 2 else ""

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


#: what a value of game.json the shape check does not look into (a chain entry's payload) or a
#: file that cannot be read raises in a check: said as a FAILED line, never as a traceback
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, OSError, mailbox.Error)


def guarded(checker: Checker, what: str, check: Callable[[], None]) -> None:
    """Run one part of the check; what it cannot read ends that part with a FAILED line, and the
    other parts still run."""
    try:
        check()
    except MALFORMED as exc:
        checker.fail(f"{what} cannot be checked ({type(exc).__name__}: {exc})")


#: the formats of game.json whose pages mark no fact: their pages, style.css and mail.mbox are
#: not checked (only the texts, HTML parts and maps of reports that game.json names there)
SITE_UNMARKED = ("mailbot-archive-1", "mailbot-archive-2", "mailbot-archive-3")


def said(checker: Checker, what: str, problems: Callable[[], list[str]]) -> None:
    """One part of the check that gives its problems as lines (``guarded``)."""
    guarded(checker, what, lambda: checker.problems.extend(problems()))


def verify(folder: Path, letters: Path | None = None, sent: Path | None = None) -> Checker:
    checker = Checker()
    data, unreadable = read_game(folder / "game.json")
    problems = [unreadable] if data is None else shape(data)
    if data is None or problems:
        for problem in problems:
            checker.fail(problem)
        return checker
    guarded(checker, "game.json's event chain", lambda: checker.chain(data["chain"]))
    finished = data["game"].get("status") == "finished" or any(
        e["kind"] == "game-finished" for e in data["chain"]
    )
    if checker.chain_ok:
        guarded(checker, "game.json's dice chains", checker.dice_chains)
    guarded(checker, "game.json's steps", lambda: checker.steps(data["steps"], finished))
    checker.map_layers = dict(data.get("map_layers") or {})
    checker.folder = folder
    guarded(checker, "game.json's reports", lambda: checker.texts(data.get("reports", [])))
    guarded(checker, "game.json's reports", lambda: checker.reports(data.get("reports", [])))
    # what a reader sees: the pages' facts, the stylesheets, mail.mbox (``facts``, ``archived_mail``)
    said(checker, "game.json's game", lambda: game_problems(data))
    if data.get("format") not in SITE_UNMARKED:  # pages written before they marked their facts
        said(checker, "the archive's pages", lambda: page_problems(folder, data))
        said(checker, "the archive's stylesheets", lambda: stylesheet_problems(folder))
        said(checker, "mail.mbox", lambda: mbox_problems(folder, data, checker.entries))
    if letters is not None:
        guarded(
            checker,
            f"your letters ({letters})",
            lambda: checker.own_letters(data, list(read_letters(letters))),
        )
    if sent is not None:
        guarded(
            checker, f"your sent letters ({sent})", lambda: checker.sent_letters(list(read_letters(sent)))
        )
    return checker
