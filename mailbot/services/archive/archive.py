# SPDX-License-Identifier: GPL-3.0-or-later
"""Exporting a game's archive: ``game.json``, a stand-alone ``verify.py``, ``mail.mbox`` and a static site.

Seeds appear only where they are revealed: with each step's results in games
without hidden information, and only when the game ends in games with it (a
revealed seed would expose the other side's rolls). Rolls appear only with
their step's seed: the chain hides even their number while the seed is secret,
because which rolls were made can depend on hidden orders. Orders, sealed
values and rolls of steps still open are left out. Each salt of a chain
commitment goes with the content it hides (an order set's, a report's), so
everything in the archive can be checked against the chain. No seat secret is
exported: report subjects lose their ``[DU-3 k7Q2]`` tag, and the letters in
``mail.mbox`` and on the pages lose every secret (``archive_letters``).

The site (``index.html``, a page per step, press, the GM's actions, the dice)
opens from disk; what it shows is collected in ``archive_site`` and laid out
by ``mailbot.render.archive_pages``. A seat's own archive (``ARCHIVE`` by
mail) is the same site with that seat's letters only, and no ``game.json``:
the whole game's, which ``verify.py`` checks, is the GM's to publish.
"""

from __future__ import annotations

import io
import json
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from mailbot import verifier, verify_archive
from mailbot.errors import ArchiveError
from mailbot.render.archive_pages import Link, Site, environment, render_site
from mailbot.render.maps.layers import factored
from mailbot.render.templates import Renderer
from mailbot.services.archive.archive_html import kept_html
from mailbot.services.archive.archive_letters import write_mbox
from mailbot.services.archive.archive_site import collect
from mailbot.services.base import chainlog, queries
from mailbot.services.base.tags import tag, untagged
from mailbot.store.game_tables import Game, GameStatus, OrderSet, Report, RollRow, StepRow, StepState
from mailbot.verifier.pages import page_text

#: 2: a report's text and HTML part may be named by the pages that show them (``text_file``;
#: ``html_file``, ``html_swaps``) instead of held (``text``, ``html``); ``verify.py`` reads
#: both, and refuses a format it does not know; 3: a letter's page may keep its style attributes
#: in one stylesheet for the site (``archive_html.shared_attributes``), a map its labels' halos
#: in the labels (``archive_maps.merged_halos``) and its texts' attributes in one stylesheet for
#: the site (``archive_maps.shared_text_styles``); 4: the pages mark every fact of game.json they
#: show (``verifier.facts``), and verify.py checks them, ``style.css`` and ``mail.mbox``
FORMAT = "mailbot-archive-4"


def _step(session: Session, step: StepRow) -> dict[str, Any]:
    orders = session.exec(select(OrderSet).where(OrderSet.step_id == step.id, col(OrderSet.current))).all()
    rolls = session.exec(
        select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position))
    ).all()
    done = step.state is not StepState.OPEN
    return {
        "key": step.key,
        "attempt": step.attempt,
        "turn": step.turn,
        "kind": step.kind,
        "state": step.state.value,
        "commitment": step.commitment,
        "seed": step.seed if step.revealed else None,
        "orders_digest": step.orders_digest,
        "orders": {row.seat: list(row.lines) for row in orders} if done else {},
        "salts": {row.seat: row.salt for row in orders if row.salt} if done else {},
        "defaulted": sorted(row.seat for row in orders if row.defaulted) if done else [],
        "sealed": {row.seat: row.sealed for row in orders if row.sealed} if done else {},
        "rolls": [dict(row.data) for row in rolls] if step.revealed else [],
    }


def game_data(
    session: Session, game_id: int, site: Site | None = None, folder: Path | None = None
) -> dict[str, Any]:
    """The content of ``game.json``. A report whose map the site shows (``site.map_files``)
    names that file (``map_file``) instead of holding the map a second time; one whose HTML
    part has a page that gives it back exactly (``site.html_pages``, written under ``folder``:
    ``archive_html``) names the page (``html_file``, with the tags swapped there); one whose
    text its step's page shows as it was sent names that letter on the page (``text_file``).
    What a page does not give back exactly stays in ``game.json``."""
    shown = site.map_files if site is not None else {}
    pages = site.html_pages if site is not None and folder is not None else {}
    game = session.get_one(Game, game_id)
    steps = queries.game_steps(session, game_id)
    reports = session.exec(select(Report).where(Report.game_id == game_id).order_by(col(Report.id))).all()
    maps = [factored(r.map_svg) for r in reports]

    texts = site.text_pages if site is not None and folder is not None else {}

    def text(report: Report) -> dict[str, Any]:
        ref = texts.get(report.id) if report.id is not None else None
        if ref is None or folder is None or page_text(folder, ref) != report.text:
            return {"text": report.text}
        return {"text_file": ref}

    def html(report: Report) -> dict[str, Any]:
        page = pages.get(report.id) if report.id is not None else None
        if page is None or folder is None or not kept_html(folder, page[0], page[1], report.html):
            return {"html": report.html}
        return {"html_file": page[0], "html_swaps": [list(swap) for swap in page[1]]}

    data = {
        "format": FORMAT,
        "game": {
            "id": game.id,
            "plugin": game.plugin,
            "scenario": game.scenario,
            "title": game.title,
            "tag": tag(game),
            "status": game.status.value,
            "result": game.result,
        },
        "steps": [_step(session, step) for step in steps],
        "chain": [entry.as_dict() for entry in chainlog.entries(session, game_id)],
        "reports": [
            {
                "seat": r.seat,
                "step": r.step_key,
                "chain_head": r.chain_head,
                "subject": untagged(r.subject),
                **text(r),
                **html(r),
                **(
                    {"map_file": shown[r.id]}
                    if r.id is not None and r.id in shown
                    else {"map_svg": maps[n][0]}
                ),
                "salt": r.salt,
            }
            for n, r in enumerate(reports)
        ],
        # Each map's board layers once (the same every hour of a game): a report's map_svg
        # names them by digest, and verify.py puts them back before it checks the map.
        "map_layers": {
            key: text
            for n, (_, layers) in enumerate(maps)
            if reports[n].id not in shown
            for key, text in layers.items()
        },
    }
    return data


DOWNLOADS = (
    Link("mail.mbox: every letter in and out, secrets removed", "mail.mbox"),
    Link("game.json: the whole record (steps, orders, rolls, the event chain)", "game.json"),
    Link("verify.py: checks game.json with Python alone (python3 verify.py .)", "verify.py"),
    Link("README.txt", "README.txt"),
)
SEAT_DOWNLOADS = (Link("mail.mbox: your letters in and out", "mail.mbox"), Link("README.txt", "README.txt"))


#: the file that marks a folder as an exported archive: a new export may replace such a folder
MARKER = ".mailbot-archive"
#: the folder beside ``verify.py`` that holds the checker it runs
VERIFIER = "verifier"


def fresh_folder(out: Path) -> None:
    """Make ``out`` an empty folder marked as an archive. A previous export there is removed
    first: exported again over itself, the older pages, maps and letters stayed beside the new
    ones (a reused demo folder held 60 MB where one export is 9). A folder holding anything
    else is refused, never emptied."""
    if out.exists() and not out.is_dir():
        raise ArchiveError(f"{out} is a file, not a folder: export into a new or empty folder")
    if out.is_dir() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise ArchiveError(
                f"{out} holds files that are not an archive mailbot wrote: export into a new or "
                "empty folder (an earlier export there is replaced)"
            )
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("An archive exported by mailbot: a new export replaces this folder.\n")


def ship_verifier(out: Path) -> None:
    """The checker into ``out``: ``verify.py``, which a player runs, and beside it the folder
    ``verifier/`` that it runs (the stdlib-only package ``mailbot/verifier``, its ``.py`` files
    alone: nothing compiled for this machine's Python)."""
    shutil.copyfile(verify_archive.__file__, out / "verify.py")
    folder = out / VERIFIER
    folder.mkdir(exist_ok=True)
    for source in sorted(Path(verifier.__file__).parent.glob("*.py")):
        shutil.copyfile(source, folder / source.name)


def not_over(session: Session, game_id: int) -> str:
    """The status of a game that is not over ("running", "paused", "setup"), "" for a finished
    one: the whole game's archive of a game not over holds what the seats have not seen (every
    seat's letters and orders), so it is the GM's private copy, never one to publish."""
    game = session.get(Game, game_id)
    if game is None:
        raise ArchiveError(f"no game {game_id}")
    return "" if game.status is GameStatus.FINISHED else game.status.value


def export(
    session: Session, game_id: int, out: Path, *, renderer: Renderer | None = None, private: bool = False
) -> Path:
    """Write the whole game's archive into ``out`` (:func:`fresh_folder`); returns the path of
    ``game.json``.

    ``game.json``, ``verify.py`` (and its ``verifier/``), ``README.txt``, ``mail.mbox`` and the
    site (``index.html``). ``private``: the GM's copy of a game not over (:func:`not_over`),
    whose README.txt opens with a warning not to publish it.
    """
    game = session.get(Game, game_id)
    if game is None:
        raise ArchiveError(f"no game {game_id}")
    fresh_folder(out)
    path = out / "game.json"
    ship_verifier(out)
    readme = ARCHIVE_README.format(title=game.title)
    if private:
        readme = PRIVATE_README.format(status=game.status.value) + readme
    (out / "README.txt").write_text(readme, encoding="utf-8")
    site = _site(session, game, out, viewer=None, renderer=renderer)
    data = game_data(session, game_id, site, out)
    path.write_text(game_json(data), encoding="utf-8")
    return path


def game_json(data: Mapping[str, Any]) -> str:
    """``game.json``'s text: each top-level key on a line of its own, and each element of a list
    there (a step, a chain entry, a report) on one line, compact. Indented, a Flat Top game's
    file was 1.2 MB, 0.26 of it spaces and line ends; one line per entry still reads in a
    pager and diffs by entry."""

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    def member(key: str, value: Any) -> str:
        if isinstance(value, list) and value:
            return f"{line(key)}:[\n" + ",\n".join(line(item) for item in value) + "\n]"
        return f"{line(key)}:{line(value)}"

    return "{\n" + ",\n".join(member(key, data[key]) for key in sorted(data)) + "\n}\n"


def export_seat(
    session: Session,
    game_id: int,
    seat: str,
    out: Path,
    *,
    renderer: Renderer | None = None,
    compact: bool = False,
) -> Path:
    """Write one seat's own archive into ``out`` (site, ``mail.mbox``, README); returns ``index.html``.

    ``compact`` (for mail): each map once, as SVG, and ``mail.mbox`` without attachments: the
    attached maps would make the letter too large for many mail servers.
    """
    game = session.get_one(Game, game_id)
    fresh_folder(out)
    readme = SEAT_README.format(title=game.title, seat=seat)
    (out / "README.txt").write_text(readme, encoding="utf-8")
    _site(session, game, out, viewer=seat, renderer=renderer, compact=compact)
    return out / "index.html"


def seat_zip(session: Session, game_id: int, seat: str, *, renderer: Renderer | None = None) -> bytes:
    """One seat's own archive as a .zip, its files under one folder named after the game and seat."""
    game = session.get_one(Game, game_id)
    folder = f"{tag(game).lower()}-{seat.lower()}-archive"
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="mailbot-archive-") as tmp:
        export_seat(session, game_id, seat, Path(tmp), renderer=renderer, compact=True)
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(Path(tmp).rglob("*")):
                if file.is_file() and file.name != MARKER:
                    archive.write(file, f"{folder}/{file.relative_to(tmp).as_posix()}")
    return buffer.getvalue()


def _site(
    session: Session,
    game: Game,
    out: Path,
    *,
    viewer: str | None,
    renderer: Renderer | None,
    compact: bool = False,
) -> Site:
    """The site and ``mail.mbox`` written into ``out``; what the site shows."""
    downloads = DOWNLOADS if viewer is None else SEAT_DOWNLOADS
    site, letters, redact = collect(
        session, int(game.id or 0), viewer=viewer, renderer=renderer, downloads=downloads, compact=compact
    )
    # What the pages show stays out: each map is on its page as the SVG its picture was painted
    # from, each letter's HTML part is saved beside its page (a Flat Top game: 60 MB to 10).
    write_mbox(out / "mail.mbox", letters, redact, attachments=not compact, pages=False)
    overrides = renderer.overrides if renderer is not None else None
    _write_files(out, render_site(site, environment(overrides)))
    return site


def _write_files(out: Path, files: Mapping[str, bytes]) -> None:
    for name, data in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


ARCHIVE_README = """The archive of {title}
======================

index.html  the game to browse: open it in a browser (or: mailbot archive serve .)
            a page per step with every seat's letters as sent, press, the GM's
            actions; once the game has ended the referee's view and every roll
mail.mbox   every letter in and out of the game, secrets removed (mutt -f mail.mbox), as
            text: each letter's map, HTML part and calendar entry are on its step's
            page (steps/)
game.json   every step (commitments, revealed seeds, orders, sealed values, rolls),
            the event chain and every report, with the salts of the chain's commitments
            (a report's text, HTML part and map: on the pages under steps/, named there)
verify.py   the checker; it needs nothing but Python 3 (it runs the files in verifier/:
            read them there to see what it checks)

Check the archive:            python3 verify.py .
Check it against your mail:   python3 verify.py . --letters YOUR_LETTERS

With --letters every report you received must state a chain head that is in
this archive's chain and be in the archive word for word, and the letter that
closed the game must name this chain's final head and length. Nobody can then
have rewritten the log after you were sent it.

Saving your letters (YOUR_LETTERS may be an mbox file, a Maildir folder, or a
folder of .eml files):
* Thunderbird: select the game's letters, File > Save As (one .eml each) into
  an empty folder; or the ImportExportTools NG add-on: export the folder as mbox.
* Apple Mail: select the letters, Mailbox > Export Mailbox (an mbox folder:
  pass the "mbox" file inside it).
* Gmail: Google Takeout, Mail, choose the label: you get an .mbox file.
* Outlook: drag each letter to a folder (.msg); save as .eml with "Save As"
  where offered, since .msg files are not read.
* mutt / neomutt: tag the letters and save them (s) into an mbox file.
* A Maildir on your own server: pass the folder that holds cur/ and new/.
"""


PRIVATE_README = """PRIVATE COPY: DO NOT PUBLISH
===========================

The game was {status} when this archive was written. It holds what the seats
have not seen: every seat's letters and orders, their hands and discards. It is
the game master's own backup; publish only the archive of the finished game.

"""


SEAT_README = """The archive of {seat} in {title}
======================

index.html  your letters step by step as they were sent, your orders, the press you got
            and the GM's actions: open it in a browser
mail.mbox   your letters in and out (secrets removed): mutt -f mail.mbox; when the
            archive came by mail, their attachments are on the pages only

Only your own letters are here. The whole game's archive, with game.json and
verify.py to check every roll and the event chain against your letters, is
published by the game master; keep your letters to check it then.
"""
