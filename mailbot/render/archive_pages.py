# SPDX-License-Identifier: GPL-3.0-or-later
"""The pages of a game's archive: a static site that opens from disk, with no server.

Templates live in the top-level ``templates/archive`` (``mailbot/templates`` in the wheel)
and get the view models below (never ORM objects), with ``StrictUndefined`` and autoescape on. Every link is
relative (``up`` leads from a page back to the site's root), no page names an
outside address, and every page links the one stylesheet (``style.css`` at the root,
readable at 360 px and in dark mode: inline in each page it took a Flat Top game's
240 pages 0.57 MB). The collecting of what a page may show is the
service's (``mailbot.services.archive.archive_site``); here it is only laid out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    StrictUndefined,
    TemplateNotFound,
    select_autoescape,
)
from markupsafe import Markup

from mailbot.render.templates import CompiledOnce
from mailbot.verifier.facts import orders_text, roll_text


@dataclass(frozen=True)
class Link:
    label: str
    path: str  # from the site's root


@dataclass(frozen=True)
class LetterView:
    """One letter as it was sent (secrets removed), with the files saved next to its page."""

    number: int
    seat: str  # "" for the game master
    kind: str
    subject: str
    date: str
    text: str
    html: str = ""  # path of the saved HTML part, from the root ("" for none)
    images: tuple[Link, ...] = ()  # maps: PNG attachments, the report's SVG
    files: tuple[Link, ...] = ()  # other attachments (deadline.ics)
    page: str = ""  # the step page it stands on, from the root
    withheld: str = ""  # why its text is not shown yet


@dataclass(frozen=True)
class SeatView:
    """A seat's part of a step: its letters, and its orders where they may be shown."""

    name: str  # "" for the game master
    letters: tuple[LetterView, ...] = ()
    orders: tuple[str, ...] | None = None  # None: not shown (hidden, or none held)
    defaulted: bool = False


@dataclass(frozen=True)
class RefereeView:
    """The referee's whole view of a step, shown only once the game has ended."""

    text: str = ""
    html: str = ""  # the game's report HTML for the referee (escaped by the game's own template)
    page: str = ""  # where that HTML is shown, from the root ("" for none)
    note: str = ""  # why it is not shown, or how it was obtained


@dataclass(frozen=True)
class StepView:
    key: str
    attempt: int
    turn: int
    kind: str
    title: str
    state: str
    page: str  # from the root, e.g. "steps/T1.orders.html"
    commitment: str
    seed: str | None  # None while it is secret
    seats: tuple[SeatView, ...] = ()
    rolls: tuple[Mapping[str, Any], ...] | None = None  # None while withheld
    referee: RefereeView | None = None  # None before the end

    @property
    def letter_count(self) -> int:
        return sum(len(seat.letters) for seat in self.seats)


@dataclass(frozen=True)
class GmAction:
    when: str
    kind: str
    details: tuple[str, ...]
    entry: int = 0  # its chain entry's index (the page names the fact ``gm/<entry>/...``)


@dataclass(frozen=True)
class Site:
    """Everything the pages show; ``files`` are saved letter parts and maps, by path from the root."""

    title: str
    tag: str
    plugin: str
    scenario: str
    status: str
    result: str
    viewer: str | None  # the seat whose own archive this is; None for the whole game
    finished: bool
    seats: tuple[tuple[str, str], ...]  # (name, status)
    steps: tuple[StepView, ...]
    press: tuple[LetterView, ...] = ()
    gm_actions: tuple[GmAction, ...] = ()
    gm_letters: tuple[LetterView, ...] = ()
    downloads: tuple[Link, ...] = ()
    files: Mapping[str, bytes] = field(default_factory=dict)
    #: the file of each report's map among ``files``, by report id (``game.json`` names it)
    map_files: Mapping[int, str] = field(default_factory=dict)
    #: the page of each report's HTML part among ``files``, by report id, with the tags swapped
    #: there (as sent, as shown): ``game.json`` names the page instead of holding the part again
    html_pages: Mapping[int, tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=dict)
    #: where each report's text stands on its step's page (``page.html#letter-n``), by report id
    text_pages: Mapping[int, str] = field(default_factory=dict)
    #: what the game calls each turn ("Convoy C4 (1940)", ``core.game.Labelled``); else "Turn N"
    turn_labels: Mapping[int, str] = field(default_factory=dict)

    def turns(self) -> list[tuple[str, list[StepView]]]:
        """The steps grouped by turn, in the order they were played, each group with its label."""
        grouped: dict[int, list[StepView]] = {}
        for step in self.steps:
            grouped.setdefault(step.turn, []).append(step)
        return [(self.turn_label(turn), steps) for turn, steps in grouped.items()]

    def turn_label(self, turn: int) -> str:
        return "Set-up" if turn == 0 else self.turn_labels.get(turn, f"Turn {turn}")


#: the archive pages' compiled templates, for every environment :func:`environment` makes in this
#: process (each export made one and compiled every page template again); a cache of their own,
#: since their environment's options are not the letters'
COMPILED = CompiledOnce()


#: the one archive template a GM's folder does not replace: verify.py holds the pages' stylesheet
#: to mailbot's byte for byte (``verifier.facts.STYLE_SHA256``), as a rule of its own could hide
#: what a page shows
PINNED = frozenset({"style.css.j2"})


class _Overrides(FileSystemLoader):
    """The GM's ``archive/`` folder (``bot.template_overrides``): any page template but
    :data:`PINNED`, which falls through to mailbot's own."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        if template in PINNED:
            raise TemplateNotFound(template)
        return super().get_source(environment, template)


def environment(overrides: Path | None = None) -> Environment:
    """The archive pages' own environment (the letters' Renderer is another's and not touched):
    mailbot's ``templates/archive``, each file replaced by one of the same name in the GM's
    ``<overrides>/archive`` folder when there is one (:class:`_Overrides`)."""
    shipped = PackageLoader("mailbot", "templates/archive")
    folder = overrides / "archive" if overrides is not None else None
    loader = ChoiceLoader([_Overrides(str(folder)), shipped]) if folder and folder.is_dir() else shipped
    env = Environment(
        bytecode_cache=COMPILED,
        loader=loader,
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html", "html.j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["trusted"] = _trusted
    # what a page shows of game.json, written as verify.py reads it back (``verifier.facts``)
    env.filters["roll_text"] = roll_text
    env.filters["orders_text"] = orders_text
    return env


def render_site(site: Site, env: Environment | None = None) -> dict[str, bytes]:
    """Every file of the site by its path from the root: the pages, then the saved letter parts."""
    env = env or environment()
    pages: dict[str, str] = {"index.html": _page(env, "index", site, "")}
    for n, step in enumerate(site.steps):
        prev = site.steps[n - 1] if n else None
        nxt = site.steps[n + 1] if n + 1 < len(site.steps) else None
        pages[step.page] = _page(env, "step", site, "../", step=step, prev=prev, next=nxt)
        if step.referee is not None and step.referee.page:
            pages[step.referee.page] = _page(env, "referee", site, "../../", step=step)
    pages["press.html"] = _page(env, "press", site, "")
    pages["gm.html"] = _page(env, "gm", site, "")
    pages["dice.html"] = _page(env, "dice", site, "")
    pages["style.css"] = env.get_template("style.css.j2").render()
    files = {path: text.encode("utf-8") for path, text in pages.items()}
    return {**files, **site.files}


def _page(env: Environment, name: str, site: Site, up: str, **extra: Any) -> str:
    return env.get_template(f"{name}.html.j2").render(site=site, up=up, **extra)


def _trusted(fragment: str) -> Markup:
    """A game's report HTML (the referee's view): player text in it was escaped by the game's own
    autoescaping template, so it is placed as it is."""
    return Markup(fragment)
