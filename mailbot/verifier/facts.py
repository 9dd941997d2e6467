# SPDX-License-Identifier: GPL-3.0-or-later
"""What the archive's pages show of ``game.json``, and the check that they show it as it is.

The page templates mark every element that shows a fact of ``game.json`` with the attribute
``data-fact`` naming it (``roll/T1.I1/1/0/faces``: the faces of the step T1.I1's first attempt's
first roll); the text of a marked element is what :func:`expected` gives for that name, written
by the functions below, which the renderer uses too (``mailbot.render.archive_pages``). Headings,
labels and other template wording are not facts and are not marked: a game master may change
them (``bot.template_overrides``), but a marked element may only show its fact.

The names, with the page that must show each (``step page``: ``steps/<stem>.html``):

* ``game/status`` (index.html; every page's footer too), ``game/result`` (index.html);
* ``step/<key>/<attempt>/state`` (its step page and index.html), ``.../commitment`` and, once
  revealed, ``.../seed`` (its step page and dice.html);
* ``orders/<key>/<attempt>/<seat>`` (its step page): the orders the dice used, one a line;
* ``roll/<key>/<attempt>/<n>/<field>`` (its step page), ``field`` one of :data:`ROLL_FIELDS`:
  the row marked ``data-roll="<key>/<attempt>/<n>"``, each cell ``data-fact="<field>"`` in it;
* ``gm/<entry>/kind`` and ``gm/<entry>/details`` (gm.html): the game master's action logged
  as chain entry ``<entry>``.

A marked element whose name game.json does not give, or whose text is not the fact's, fails; so
does a fact its page lacks. On the site's own pages (:data:`SITE_PAGES`) nothing may be hidden
by the page itself: a ``style`` or ``hidden`` attribute, a ``<style>``, ``<script>`` or another
stylesheet than ``style.css`` fail, as ``style.css`` is checked whole (``checker.stylesheet``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

#: the attribute that names the fact an element shows
FACT = "data-fact"
#: the attribute of a roll's row: the facts marked in it are that roll's (``roll/<its value>/``)
ROLL = "data-roll"
#: what a roll's row shows, each in a cell of its own
ROLL_FIELDS = ("label", "dice", "faces", "modifiers", "total", "rule")
#: the site's pages that are checked (each step's page is ``steps/<stem>.html``)
SITE_PAGES = ("index.html", "dice.html", "gm.html", "press.html")
#: what a page may not hold, since it can hide or change what the page shows
HIDING_TAGS = ("style", "script")
HIDING_ATTRIBUTES = ("style", "hidden")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """A name as a file name may hold it."""
    return _UNSAFE.sub("-", text).strip("-.") or "x"


def step_stem(key: str, attempt: int) -> str:
    """A step attempt's page, without ``steps/`` and ``.html``."""
    return slug(key) + ("" if attempt == 1 else f"-attempt{attempt}")


def faces_text(faces: Iterable[Any]) -> str:
    return " ".join(str(face) for face in faces)


def modifiers_text(modifiers: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} {value:+d}" for name, value in sorted(modifiers.items()))


def dice_text(count: Any, sides: Any) -> str:
    return f"{count}d{sides}"


def orders_text(lines: Sequence[str]) -> str:
    return "\n".join(lines) if lines else "(none)"


def gm_details(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """A game master's action's details, as its chain entry's payload holds them."""
    return tuple(f"{key}: {value}" for key, value in sorted(payload.items()))


def roll_text(roll: Mapping[str, Any], field: str) -> str:
    """One of a roll's :data:`ROLL_FIELDS` as its row shows it."""
    if field == "dice":
        return dice_text(roll["count"], roll["sides"])
    if field == "faces":
        return faces_text(roll["faces"])
    if field == "modifiers":
        return modifiers_text(roll["modifiers"])
    return str(roll.get(field, ""))


def expected(data: Mapping[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every fact the pages show: its name, its text and the pages that must show it."""
    game = data["game"]
    facts: dict[str, tuple[str, tuple[str, ...]]] = {
        "game/status": (str(game.get("status")), ("index.html",))
    }
    if game.get("result"):
        facts["game/result"] = (str(game["result"]), ("index.html",))
    for step in data["steps"]:
        key, attempt = step["key"], step["attempt"]
        page = f"steps/{step_stem(key, attempt)}.html"
        at = f"{key}/{attempt}"
        facts[f"step/{at}/state"] = (str(step["state"]), (page, "index.html"))
        facts[f"step/{at}/commitment"] = (str(step["commitment"]), (page, "dice.html"))
        if step.get("seed"):
            facts[f"step/{at}/seed"] = (str(step["seed"]), (page, "dice.html"))
        for seat, lines in step.get("orders", {}).items():
            facts[f"orders/{at}/{seat}"] = (orders_text(lines), (page,))
        for n, roll in enumerate(step["rolls"]):
            for field in ROLL_FIELDS:
                facts[f"roll/{at}/{n}/{field}"] = (roll_text(roll, field), (page,))
    for entry in data["chain"]:
        if str(entry["kind"]).startswith("gm-"):
            n = entry["index"]
            facts[f"gm/{n}/kind"] = (str(entry["kind"]).removeprefix("gm-"), ("gm.html",))
            facts[f"gm/{n}/details"] = ("; ".join(gm_details(entry["payload"])), ("gm.html",))
    return facts


def same(shown: str, fact: str, exact: bool) -> bool:
    """A marked element's text is its fact: exactly in a ``<pre>``, else word for word."""
    if exact:
        return shown.strip("\n") == fact
    return shown.split() == fact.split()


class Marked(HTMLParser):
    """A page's marked elements (name, text, whether a ``<pre>``) and what on it can hide text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, bool]] = []
        self.hiding: list[str] = []
        self.open: list[list[Any]] = []  # [name, tag, depth, text parts]
        self.roll: list[Any] = []  # the roll row open: [prefix, tag, depth]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for item in [*self.open, self.roll]:
            if item and item[1] == tag:
                item[2] += 1
        if tag in HIDING_TAGS:
            self.hiding.append(f"a <{tag}> element")
        for attribute in HIDING_ATTRIBUTES:
            if attribute in names:
                self.hiding.append(f"a <{tag}> with a {attribute} attribute")
        href = names.get("href") or ""
        linked = tag == "link" and (names.get("rel") or "").lower() == "stylesheet"
        if linked and re.fullmatch(r"(?:\.\./)*style\.css", href) is None:
            self.hiding.append(f"a stylesheet other than style.css ({href})")
        if names.get(ROLL) is not None and not self.roll:
            self.roll = [f"roll/{names[ROLL]}/", tag, 0]
        name = names.get(FACT)
        if name is not None:
            self.open.append([(self.roll[0] if self.roll else "") + name, tag, 0, []])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.roll and self.roll[1] == tag:
            if self.roll[2]:
                self.roll[2] -= 1
            else:
                self.roll = []
        for item in reversed(self.open):
            if item[1] != tag:
                continue
            if item[2]:
                item[2] -= 1
                continue
            self.open.remove(item)
            self.found.append((item[0], "".join(item[3]), tag == "pre"))
            break

    def handle_data(self, data: str) -> None:
        for item in self.open:
            item[3].append(data)


def site_pages(folder: Path) -> list[str]:
    """The site's own pages that the archive holds, by path from its root."""
    names = [name for name in SITE_PAGES if (folder / name).is_file()]
    steps = folder / "steps"
    if steps.is_dir():
        names += sorted(f"steps/{path.name}" for path in steps.glob("*.html") if path.is_file())
    return names


def page_problems(folder: Path, data: Mapping[str, Any]) -> list[str]:
    """Every marked fact the site's pages show that is not game.json's, and every fact a page
    that should show it lacks, each a line naming the page and the fact."""
    facts = expected(data)
    problems: list[str] = []
    shown: dict[str, set[str]] = {}
    for page in site_pages(folder):
        reader = Marked()
        reader.feed((folder / page).read_bytes().decode("utf-8", "replace"))
        reader.close()
        problems += [f"{page}: {what} can hide or change what the page shows" for what in reader.hiding]
        for name, text, exact in reader.found:
            shown.setdefault(name, set()).add(page)
            fact = facts.get(name)
            if fact is None:
                problems.append(f"{page}: it shows {name} ({short(text)}), which game.json does not hold")
            elif not same(text, fact[0], exact):
                problems.append(f"{page}: its {name} reads {short(text)}, game.json says {short(fact[0])}")
    missing: set[str] = set()
    for name, (text, pages) in facts.items():
        for page in pages:
            if page in shown.get(name, set()):
                continue
            if (folder / page).is_file():
                problems.append(f"{page}: it lacks {name} ({short(text)}) that game.json holds")
            elif page not in missing:
                missing.add(page)
                problems.append(f"{page} is missing: it should show {name} and what else game.json holds")
    return problems


def short(text: str) -> str:
    """A text as a FAILED line quotes it: on one line, at most 80 characters."""
    one = repr(text.strip())
    return one if len(one) <= 80 else one[:77] + "..."


#: the SHA-256 of mailbot's ``style.css`` (``templates/archive/style.css.j2`` as rendered; a test
#: keeps the two together): the only stylesheet the site's pages may link
STYLE_SHA256 = "879cffd84e5a0c3321cdb1ccd1ae6f0de35af0a44ae65c527bb8bcde7df8d6e5"
#: the stylesheets kept once for the site, and the one form every line of each must have
SHARED_SHEETS = {
    "steps/styles/attributes.css": re.compile(r'\[data-style="[0-9a-f]{8}"\]\{[^{}\n]*\}'),
    "steps/layers/texts.css": re.compile(r'\[data-t="[0-9a-f]{8}"\]\{[^{}\n]*\}'),
}


def stylesheet_problems(folder: Path) -> list[str]:
    """``style.css`` is mailbot's, byte for byte: any other rule can hide or move what a page
    shows (``#dice{display:none}``), and a changed one is said plainly, never judged. The
    stylesheets kept once for the site hold nothing but the rules their pages name, one a line."""
    problems = []
    path = folder / "style.css"
    if not path.is_file():
        problems.append("style.css is missing")
    else:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != STYLE_SHA256:
            problems.append(
                f"style.css is not mailbot's stylesheet (SHA-256 {digest[:16]}..., mailbot's "
                f"{STYLE_SHA256[:16]}...): a changed stylesheet can hide what the pages show"
            )
    for name, rule in SHARED_SHEETS.items():
        sheet = folder / name
        if not sheet.is_file():
            continue
        text = sheet.read_bytes().decode("utf-8", "replace")
        for n, line in enumerate(text.split("\n"), 1):
            if line and rule.fullmatch(line) is None:
                problems.append(f"{name}: line {n} is not a rule a page or map names ({short(line)})")
    return problems


def game_problems(data: Mapping[str, Any]) -> list[str]:
    """game.json's ``game`` (what index.html shows) is what the chain logged: the title, rules
    and scenario it was created with, and the result it finished with (and finished only then)."""
    game = data["game"]
    problems = []
    created = next((e["payload"] for e in data["chain"] if e["kind"] == "game-created"), None)
    finished = next((e["payload"] for e in data["chain"] if e["kind"] == "game-finished"), None)
    if created is not None:
        for field in ("title", "plugin", "scenario"):
            if field in created and game.get(field) != created[field]:
                problems.append(
                    f"game.json: the game's {field} is not the one the chain logged when it was created"
                )
    if finished is None and game.get("status") == "finished":
        problems.append("game.json: the game is marked finished, but the chain never finished it")
    elif finished is not None and game.get("status") != "finished":
        problems.append("game.json: the chain finished the game, but it is not marked finished")
    if (finished or {}).get("result", "") != (game.get("result") or ""):
        problems.append("game.json: the game's result is not the one the chain logged when it finished")
    return problems
