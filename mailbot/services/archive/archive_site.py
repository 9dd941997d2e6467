# SPDX-License-Identifier: GPL-3.0-or-later
"""Collecting what a game's archive site shows, and what it may show (``render.archive_pages`` lays it out).

Who the archive is for decides what is in it (``viewer``):

* the whole game (``viewer=None``, ``mailbot archive export``): every seat's
  letters as sent, the GM's letters and actions, the orders of every closed
  step (as ``game.json`` has them);
* one seat (``ARCHIVE`` by mail): its current player's letters and orders, the
  steps, the GM's public actions; no other seat's letters or orders, except
  orders of steps whose seed is revealed. A seat handed on from an earlier
  player is like another seat for what that player wrote and got
  (``archive_holder``).

For both: no seat secret (``archive_letters.Redactor``), no seed before it is
revealed and no roll of a step whose seed is still secret (hidden-information
games reveal them only at the end), and the referee's view of each step only
once the game has ended.

Each letter out stands on the page of one step: a report on the step it
reports (``Report`` row, same seat and time), any other letter on the step
that was open when it was written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core.game import Labelled
from mailbot.errors import StoreError, UnknownGameError
from mailbot.render.archive_pages import GmAction, LetterView, Link, RefereeView, SeatView, Site, StepView
from mailbot.render.templates import Renderer
from mailbot.services.archive.archive_holder import Holder, holder_of
from mailbot.services.archive.archive_html import Swap, letter_page
from mailbot.services.archive.archive_letters import (
    GameLetter,
    ReadLetter,
    Redactor,
    game_letters,
    read_letter,
    redactor_of,
)
from mailbot.services.archive.archive_maps import save_map
from mailbot.services.archive.archive_referee import in_letters, referee_views, shown_once
from mailbot.services.base import queries
from mailbot.services.base.tags import tag
from mailbot.store.game_tables import (
    ChainRow,
    Game,
    GameStatus,
    OrderSet,
    Report,
    RollRow,
    StepRow,
    StepState,
    row_id,
)
from mailbot.verifier import facts
from mailbot.verifier.facts import gm_details, slug

SKIPPED_TYPES = ("application/zip",)  # an ARCHIVE letter's own archive: not nested into this one


def step_stem(step: StepRow) -> str:
    """A step attempt's page's name, as verify.py finds it (``verifier.facts``)."""
    return facts.step_stem(step.key, step.attempt)


def collect(
    session: Session,
    game_id: int,
    *,
    viewer: str | None = None,
    renderer: Renderer | None = None,
    downloads: Sequence[Link] = (),
    compact: bool = False,
) -> tuple[Site, list[GameLetter], Redactor]:
    """The site of game ``game_id`` for ``viewer`` (a seat, or None for the whole game), every
    letter in and out that goes with it, oldest first (for ``mail.mbox``), and what cuts their
    secrets. ``compact``: each map once (a site that travels by mail)."""
    game = session.get_one(Game, game_id)
    steps = list(session.exec(select(StepRow).where(StepRow.game_id == game_id).order_by(col(StepRow.id))))
    holder = holder_of(session, game, viewer) if viewer is not None else None
    letters = game_letters(session, game, holder)
    redact = redactor_of(session, game, letters)
    placed = _place(session, game_id, steps, letters)
    kept = Kept()
    outgoing = [
        (item.step, _letter_view(item, number, redact, kept, compact=compact))
        for number, item in enumerate(placed, 1)
        if item.step is not None
    ]
    finished = game.status is GameStatus.FINISHED
    referee = referee_views(session, game, steps, renderer or Renderer()) if finished else {}
    pages = {row_id(step): _referee_page(step) for step in steps}
    shown = {
        row_id(step): [
            (v.seat, v.html, kept.files[v.html].decode("utf-8")) for s, v in outgoing if s is step and v.html
        ]
        for step in steps
    }
    referee = in_letters(referee, pages, shown)
    referee = shown_once(referee, pages, {row_id(step): step.title for step in steps})
    own = _Own(holder, {letter.inbound_id for letter in letters if letter.inbound_id is not None})
    step_views = [
        _step_view(session, game, step, own, [view for s, view in outgoing if s is step], referee=referee)
        for step in steps
    ]
    site = Site(
        title=game.title,
        tag=tag(game),
        plugin=game.plugin,
        scenario=game.scenario,
        status=game.status.value,
        result=game.result,
        viewer=viewer,
        finished=finished,
        seats=tuple((seat.name, seat.status.value) for seat in queries.seats(session, game_id)),
        steps=tuple(step_views),
        press=tuple(view for _, view in outgoing if view.kind == "press"),
        gm_actions=tuple(_gm_actions(session, game_id)),
        gm_letters=tuple(view for _, view in outgoing if not view.seat) if viewer is None else (),
        downloads=tuple(downloads),
        turn_labels=_turn_labels(game, steps),
        files=kept.files,
        map_files=kept.maps,
        html_pages=kept.pages,
        text_pages=kept.texts,
    )
    return site, letters, redact


def _turn_labels(game: Game, steps: Sequence[StepRow]) -> dict[int, str]:
    """What the game calls each of its turns (``core.game.Labelled``: "Convoy C4 (1940)"); none
    for a game without labels, or whose package is no longer installed: the index says "Turn N"."""
    try:
        plugin = queries.plugin(game)
    except UnknownGameError:
        return {}
    if not isinstance(plugin, Labelled):
        return {}
    return {step.turn: plugin.turn_label(step.turn) for step in steps if step.turn}


# -- placing letters on step pages ------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """A letter with the step whose page shows it (None for letters in: they are in the mbox),
    and the report row kept with it (for a report letter)."""

    letter: GameLetter
    step: StepRow | None
    report: Report | None = None


def _place(
    session: Session, game_id: int, steps: Sequence[StepRow], letters: Sequence[GameLetter]
) -> list[Placed]:
    reports = session.exec(select(Report).where(Report.game_id == game_id)).all()
    by_time = {(report.seat, report.created_at): report for report in reports}
    placed: list[Placed] = []
    for letter in letters:
        out = letter.outbound
        if out is None or not steps:
            placed.append(Placed(letter, None))
            continue
        report = by_time.get((out.seat, out.created_at)) if out.kind == "report" else None
        placed.append(Placed(letter, _reported(steps, report) or _open_at(steps, letter), report))
    return placed


def _reported(steps: Sequence[StepRow], report: Report | None) -> StepRow | None:
    """The step a report letter reports on: the attempt of its key closed when it was written."""
    if report is None:
        return None
    closed = [
        s
        for s in steps
        if s.key == report.step_key and s.closed_at is not None and s.closed_at <= report.created_at
    ]
    return closed[-1] if closed else None


def _open_at(steps: Sequence[StepRow], letter: GameLetter) -> StepRow:
    opened = [step for step in steps if step.opened_at <= letter.when]
    return opened[-1] if opened else steps[0]


@dataclass
class Kept:
    """What the letters' views save: files by path from the root, and of each report (by id)
    the file of its map and the page of its HTML part (``game.json`` names them)."""

    files: dict[str, bytes] = field(default_factory=dict)
    maps: dict[int, str] = field(default_factory=dict)
    pages: dict[int, tuple[str, tuple[Swap, ...]]] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)  # the step page's letter: page#anchor


def _letter_view(item: Placed, number: int, redact: Redactor, kept: Kept, *, compact: bool) -> LetterView:
    """The letter as sent (secrets removed); its HTML part, maps and attachments saved in
    ``kept``, with the files of its report's map and HTML part."""
    letter, step, out = item.letter, item.step, item.letter.outbound
    if step is None:
        raise StoreError("a letter in has no page of its own")
    read = read_letter(letter.parsed, redact)
    stem = f"steps/{step_stem(step)}/{number:03d}-{slug(letter.seat or 'gm')}"
    common: dict[str, Any] = {
        "number": number,
        "seat": letter.seat,
        "kind": out.kind if out is not None else "letter",
        "subject": read.subject,
        "date": letter.when.strftime("%Y-%m-%d %H:%M UTC"),
        "page": f"steps/{step_stem(step)}.html",
    }
    if letter.withheld:
        return LetterView(text="", withheld=letter.withheld, **common)
    svg = _map_svg(item.report)
    images, attached, names = _save_parts(read, stem, svg, kept.files, compact=compact)
    report = item.report.id if item.report is not None else None
    if report is not None:
        kept.texts[report] = f"{common['page']}#letter-{number}"
    if svg and report is not None:
        kept.maps[report] = f"{stem}-map.svg"
    html = ""
    if read.html:
        html = f"{stem}.html"
        page = letter_page(read.html, names, "../", kept.files)
        kept.files[html] = page.text.encode("utf-8")
        if report is not None:
            kept.pages[report] = (html, page.swaps)
    return LetterView(text=read.text, html=html, images=tuple(images), files=tuple(attached), **common)


def _save_parts(
    read: ReadLetter, stem: str, svg: str, files: dict[str, bytes], *, compact: bool
) -> tuple[list[Link], list[Link], dict[str, str]]:
    """Save a letter's attachments next to its page: the pictures to show, the files to link, and
    the saved name of each inline part (by Content-ID).

    One picture per map is shown: the report's SVG where there is one (sharper, and its board
    kept once for the whole game, ``archive_maps``); the attached PNG, a picture of the same
    SVG, is then left out (the letters as sent keep it, and the chain its digest). A map's
    zoomed inset (``…-zoomed.png``) is that SVG through the window its root names
    (``data-inset``): the page shows the same file through that window (an SVG view
    fragment), and the archive keeps no byte more for it.
    """
    images: list[Link] = []
    attached: list[Link] = []
    names: dict[str, str] = {}
    svg_path = f"{stem}-map.svg"
    if svg:
        save_map(svg, svg_path, files)
    for n, part in enumerate(read.attachments, 1):
        picture = part.content_type.startswith("image/")
        if part.content_type in SKIPPED_TYPES or (svg and picture):
            shown = svg_path.rsplit("/", 1)[1] + _window(svg, part.filename)
            names[part.content_id] = shown if svg and picture else ""
            continue
        path = f"{stem}-{n}-{slug(part.filename)}"
        files[path] = part.data
        names[part.content_id] = path.rsplit("/", 1)[1]
        (images if picture else attached).append(Link(part.filename, path))
    if svg:
        images.insert(0, Link("the map (SVG)", svg_path))
    return images, attached, names


_INSET = re.compile(r'<svg\b[^>]*?\sdata-inset="([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)"')
_VIEW = re.compile(r'<view id="inset"\s')


def _window(svg: str, filename: str) -> str:
    """The view fragment that shows a map's inset (an attachment named ``…-zoomed.png``) in the
    map's SVG, "" for the map itself or a map without an inset: the view the map names
    (``#inset``: the window, and the labels placed for it in place of the theatre's), or a
    window on it (a map drawn before it had one)."""
    found = _INSET.search(svg) if filename.endswith("-zoomed.png") else None
    if found is None:
        return ""
    return "#inset" if _VIEW.search(svg) else f"#svgView(viewBox({','.join(found.groups())}))"


def _map_svg(report: Report | None) -> str:
    """The SVG map kept with the letter's report, when the report has one (``Report.map_svg``)."""
    return str(getattr(report, "map_svg", "") or "") if report is not None else ""


# -- steps --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Own:
    """Whose orders a site may show as the viewer's own: those of the seat's current player (the
    seat's letters of his that the site holds), never an earlier player's (``archive_holder``)."""

    holder: Holder | None  # None: the whole game's site
    letters: set[int]

    @property
    def viewer(self) -> str | None:
        return self.holder.seat if self.holder is not None else None

    def owns(self, held: OrderSet) -> bool:
        return self.holder is not None and self.holder.owns_orders(held, self.letters)


def _step_view(
    session: Session,
    game: Game,
    step: StepRow,
    own: _Own,
    letters: Sequence[LetterView],
    *,
    referee: Mapping[int, RefereeView],
) -> StepView:
    held = queries.current_orders(session, row_id(step))
    names = [seat.name for seat in queries.seats(session, row_id(game))]
    shown = [own.viewer] if own.viewer is not None else [*names, ""]
    seats = [
        _seat_view(name, step, own, held.get(name), [v for v in letters if v.seat == name]) for name in shown
    ]
    page = f"steps/{step_stem(step)}.html"
    found = referee.get(row_id(step))
    if found is not None and found.html:
        found = replace(found, page=_referee_page(step))
    return StepView(
        key=step.key,
        attempt=step.attempt,
        turn=step.turn,
        kind=step.kind,
        title=step.title,
        state=step.state.value,
        page=page,
        commitment=step.commitment,
        seed=step.seed if step.revealed else None,
        # GM section only where the GM got letters; seats always (their orders, or "no letter").
        seats=tuple(view for view in seats if view.name or view.letters),
        rolls=_rolls(session, step) if step.revealed else None,
        referee=found if game.status is GameStatus.FINISHED else None,
    )


def _referee_page(step: StepRow) -> str:
    """Where a step's referee's view is shown, from the site's root."""
    return f"steps/{step_stem(step)}/referee.html"


def _seat_view(
    name: str, step: StepRow, own: _Own, held: OrderSet | None, letters: Sequence[LetterView]
) -> SeatView:
    show = held is not None and _orders_visible(step, held, own)
    orders = tuple(held.lines) if show and held is not None else None
    return SeatView(name, tuple(letters), orders, bool(held and held.defaulted and show))


def _orders_visible(step: StepRow, held: OrderSet, own: _Own) -> bool:
    """The viewer's own orders always; the whole game's archive: every closed step's (as
    game.json); another seat's, or an earlier player's of the viewer's seat: once the step's
    seed is revealed."""
    if own.owns(held):
        return True
    if step.state is StepState.OPEN:
        return False
    return own.holder is None or step.revealed


def _rolls(session: Session, step: StepRow) -> tuple[Mapping[str, Any], ...]:
    rows = session.exec(select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position)))
    return tuple(dict(row.data) for row in rows)


def _gm_actions(session: Session, game_id: int) -> list[GmAction]:
    """The GM's actions from the event chain (each one was announced to every seat)."""
    query = select(ChainRow).where(ChainRow.game_id == game_id, col(ChainRow.kind).startswith("gm-"))
    rows = session.exec(query.order_by(col(ChainRow.position)))
    return [
        GmAction(
            row.created_at.strftime("%Y-%m-%d %H:%M"),
            row.kind.removeprefix("gm-"),
            gm_details(row.payload),
            row.position,
        )
        for row in rows
    ]
