# SPDX-License-Identifier: GPL-3.0-or-later
"""Every template renders into a letter people can read: in a fixed-width client, on a phone, in the dark.

The sample letters are the real thing: each registered game is played through
with the contract kit (its demo script, fixed dice), and its report at the
opening, after the first step that had events, and at the end is rendered for
every seat and the referee, framed by ``common/letter`` through the Postman and
mailed through ``compose``; the parts checked are the ones read back from the
MIME message.
"""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment

from mailbot.mail.compose import Outgoing, compose
from mailbot.registry import GamePackage, default_registry
from mailbot.render import archive_pages
from mailbot.render.templates import WIDTH, Rendered, Renderer, fits, wrap72
from mailbot.services.inbox.handling import Reply
from mailbot.services.post.identity import Identity
from mailbot.services.post.letters import Draft, Postman, letter_title
from mailbot.testing import html_check
from tests.played import played

REGISTRY = default_registry()
PACKAGES = REGISTRY.packages()
IDENTITY = Identity(address="mailbot@example.org", name="mailbot", gm_address="gm@example.org")
HEX = "3f9a" * 16  # a SHA-256 in hex, as the letters carry chain heads, seeds and commitments
SECRET = "k7Q2xY"
COMMON = ("common/letter", "common/reply", "common/notice")


def postman(renderer: Renderer) -> Postman:
    return Postman(renderer=renderer, identity=IDENTITY, new_message_id=lambda: "1@example.org")


def mailed(subject: str, body: Rendered) -> tuple[str, str]:
    """The text and HTML parts of the message ``compose`` makes, as a mail client reads them."""
    out = Outgoing(
        sender=IDENTITY.address,
        sender_name=IDENTITY.name,
        recipient="player@example.org",
        subject=subject,
        body=body,
        message_id="1@example.org",
        date=datetime(2026, 3, 2, 18, 0, tzinfo=UTC),
    )
    message = email.message_from_bytes(compose(out), policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    parts = [message.get_body(preferencelist=(kind,)) for kind in ("plain", "html")]
    text, html = (str(part.get_content()).replace("\r\n", "\n") for part in parts if part is not None)
    return text, html


@dataclass(frozen=True)
class Sample:
    where: str  # "duel after T1.orders, seat north"
    fragment: str  # the game's report.html.j2 as rendered
    written: str  # common/letter.html.j2 as rendered, before css-inline re-serialises it
    text: str  # the letter's text/plain part as mailed
    html: str  # the letter's text/html part as mailed


def moments(package: GamePackage) -> list[tuple[str, Any, tuple[Any, ...]]]:
    """(name, state, events): the opening, after the first step with events, and the end."""
    log, game = played(package.name), package.game
    first = next(record for record in log.steps if record.outcome.events)
    last = log.steps[-1]
    return [
        ("opening", game.load(log.start), ()),
        (f"after {first.step.key}", first.outcome.state, tuple(first.outcome.events)),
        ("finished", last.outcome.state, tuple(last.outcome.events)),
    ]


def report_letter(package: GamePackage, moment: str, body: Rendered) -> Draft:
    """A report as ``services.play.reports`` writes one: the game's body, dice, next step and chain head."""
    code = package.name[:2].upper()
    letter = Draft("player@example.org", f"[{code}-7 {SECRET}] {package.game.title}: {moment}", body=body)
    if moment == "opening":
        seed = "Its seed is revealed when the game ends."
        letter.section("Dice of the set-up", [f"Commitment: {HEX}", seed])
    else:
        letter.section("Dice of this step", [f"Seed (check it against the commitment): {HEX}"])
        letter.section("Default orders", ["No orders came from south; defaults were applied."])
    letter.section(
        "Next step",
        [
            "Turn 2 of 3: orders, due Mon 2 Mar 2026 18:00 (Europe/Berlin).",
            "Send: ORDERS T2.orders followed by your orders, one per line, then END.",
        ],
    )
    letter.footer.append(f"Game log chain head: {HEX}")
    return letter


@cache
def samples(name: str) -> tuple[Sample, ...]:
    package, renderer = REGISTRY.find(name), Renderer(registry=REGISTRY)
    frame, found = renderer.env.get_template("common/letter.html.j2"), []
    for moment, state, events in moments(package):
        for seat in (*played(name).setup.seats, None):
            body = renderer.render(f"{package.name}/report", {"r": package.game.view(state, events, seat)})
            letter, where = report_letter(package, moment, body), f"{name} {moment}, seat {seat or 'referee'}"
            written = frame.render(postman(renderer).context(letter))
            text, html = mailed(letter.subject, postman(renderer).render(letter))
            found.append(Sample(where, body.html, written, text, html))
    return tuple(found)


def common_letters(renderer: Renderer) -> dict[str, tuple[str, str, str]]:
    """Every common template as written and as mailed (html, text, html), each with its awkward cases."""
    reply = Reply()
    reply.section("Orders accepted for T1.orders", ["ATTACK 2", "DEFEND 1", f"Receipt: {HEX}"])
    reply.problem(3, "ATTACK <b>9</b> " + "x" * 90, "ATTACK takes 0 to 3 dice; you have 3 in all")
    reply.problem(4, "FLY AF1 PATH " + " ".join(f"VI-N{n}" for n in range(30)), "no such air formation")
    reply.more_problems = 2
    notice = ["Last error: " + "e" * 90, "To: x@example.org"]
    letter = Draft("gm@example.org", "[DU-7 GM] Reminder & <notice>").section("Ticks", ["a " * 60])
    contexts = {
        "common/reply": {"bot": "mailbot", "sender_name": None, "reply": reply},
        "common/notice": {"bot": "mailbot", "title": "delivery failed to x@example.org", "lines": notice},
        "common/letter": postman(renderer).context(letter),
    }
    letters = {}
    for name, context in contexts.items():
        written = renderer.env.get_template(f"{name}.html.j2").render(context)
        letters[name] = (written, *mailed("a letter", renderer.render(name, context)))
    return letters


def too_wide(text: str) -> list[str]:
    """Lines over 72 columns that are not a label and a long token (``wrap72``'s own exception)."""
    return [line for line in text.split("\n") if not fits(line)]


def game_params() -> list[Any]:
    """Every registered game."""
    return [pytest.param(package.name, id=package.name) for package in PACKAGES]


# -- every template --------------------------------------------------------------------------


def test_the_samples_cover_every_template_the_bot_can_render() -> None:
    covered = {f"{package.name}/report.{kind}.j2" for package in PACKAGES for kind in ("txt", "html")}
    covered |= {f"{name}.{kind}.j2" for name in COMMON for kind in ("txt", "html")}
    assert set(Renderer(registry=REGISTRY).env.list_templates()) <= covered
    assert {"duel", "wif-turn-end", "atlantic-storm", "salt-n-tar", "flattop"} <= {p.name for p in PACKAGES}


@pytest.mark.parametrize("name", game_params())
def test_every_text_line_fits_72_columns_but_long_tokens(name: str) -> None:
    checked = 0
    for sample in samples(name):
        assert not too_wide(sample.text), f"{sample.where}:\n" + "\n".join(too_wide(sample.text))
        assert HEX in sample.text and "ORDERS" in sample.text
        checked += 1
    assert checked >= 9  # three moments, two seats and the referee at least


@pytest.mark.parametrize("name", game_params())
def test_the_html_part_is_one_self_contained_document(name: str) -> None:
    for sample in samples(name):
        # as written (a nested document is an error here) and as mailed (after css-inline)
        assert html_check.document_problems(sample.written) == [], sample.where
        assert html_check.document_problems(sample.html) == [], sample.where
        assert html_check.unwrapped_pre(sample.html) == [], sample.where
        assert "<pre" in sample.html and "<h2" in sample.html, sample.where


@pytest.mark.parametrize("name", game_params())
def test_the_report_template_is_a_fragment_the_letter_places(name: str) -> None:
    for sample in samples(name):
        assert sample.fragment.strip(), sample.where
        assert html_check.fragment_problems(sample.fragment) == [], sample.where


@pytest.mark.parametrize("name", [package.name for package in PACKAGES if package.name != "flattop"])
def test_the_report_uses_the_shared_classes(name: str) -> None:
    """The order help is a copyable ``.orders`` block: the letter styles it, and so would every client."""
    html = samples(name)[0].html
    assert 'class="orders"' in html


@pytest.mark.parametrize("name", COMMON)
def test_every_common_letter_is_readable_in_both_parts(name: str) -> None:
    written, text, html = common_letters(Renderer(registry=REGISTRY))[name]
    assert not too_wide(text), "\n".join(too_wide(text))
    assert html_check.document_problems(written) == []
    assert html_check.document_problems(html) == []
    assert html_check.unwrapped_pre(html) == []


def test_player_text_is_escaped_and_long_lines_wrap_in_the_common_letters() -> None:
    letters = common_letters(Renderer(registry=REGISTRY))
    _, reply_text, reply_html = letters["common/reply"]
    assert "ATTACK &lt;b&gt;9&lt;/b&gt;" in reply_html and "<b>9</b>" not in reply_html
    assert "... and 2 more lines I could not use" in reply_text
    *_, letter_html = letters["common/letter"]
    assert "<title>Reminder &amp; &lt;notice&gt;</title>" in letter_html


# -- the frame --------------------------------------------------------------------------------


def test_the_seats_secret_is_on_the_subject_line_only() -> None:
    """The HTML part is archived and may be shown to others: its title drops the [XX-n secret] tag."""
    for sample in samples("duel"):
        assert SECRET not in sample.html and SECRET not in sample.text
        assert "<title>Dice duel: " in sample.html
    assert letter_title("[DU-7 k7Q2xY] Dice duel: the game begins") == "Dice duel: the game begins"
    assert letter_title("Re: [DU-7 GM] Pause") == "Re: Pause"
    assert letter_title(f"[DU-7 {SECRET}]") == ""  # the Postman then titles it with the bot's name


def test_the_report_is_placed_once_inside_the_letter_body() -> None:
    sample = samples("duel")[-1]
    body = sample.html.split("<body", 1)[1]
    assert body.count("<h2") == 1 and "report for" in body
    assert sample.html.lower().count("<!doctype") == 1 and sample.html.count("<title>") == 1


def test_the_layout_reaches_style_attributes_and_the_colours_stay_in_the_stylesheet() -> None:
    """Without <style>, <pre> still wraps and tables are ruled; no light colour is forced on a dark client."""
    html = samples("duel")[-1].html
    styles = [attrs.get("style", "") for _, attrs in html_check.scan(html).elements]
    assert any("border-collapse: collapse" in style for style in styles)
    assert not any("background" in style or "color:" in style.replace(" ", "") for style in styles)


# -- a game master's overrides --------------------------------------------------------------------


def test_an_override_replaces_the_text_frame_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "letter.txt.j2").write_text(
        "OUR CLUB LETTER\n{{ body_text }}\nYours, {{ bot }} ({{ title }})\n", "utf-8"
    )
    renderer = Renderer(tmp_path, registry=REGISTRY)
    package = REGISTRY.find("duel")
    state = package.game.load(played("duel").start)
    body = renderer.render("duel/report", {"r": package.game.view(state, (), "north")})
    text, html = mailed("x", postman(renderer).render(report_letter(package, "opening", body)))
    assert text.startswith("OUR CLUB LETTER\n== Dice duel: report for north ==")
    assert "Yours, mailbot (Dice duel: opening)" in text and "Send HELP" not in text
    assert html_check.document_problems(html) == [] and "Send HELP" in html  # the shipped HTML frame


def test_an_override_replaces_a_games_html_report_and_keeps_autoescape(tmp_path: Path) -> None:
    (tmp_path / "duel").mkdir()
    (tmp_path / "duel" / "report.html.j2").write_text(
        '<h2 class="warn">House rules for {{ r.seat }}</h2>\n<p>{{ r.title ~ " <i>" }}</p>\n', "utf-8"
    )
    renderer = Renderer(tmp_path, registry=REGISTRY)
    package = REGISTRY.find("duel")
    state = package.game.load(played("duel").start)
    body = renderer.render("duel/report", {"r": package.game.view(state, (), "south")})
    assert body.html.startswith('<h2 class="warn">House rules for south</h2>')
    assert "Dice duel &lt;i&gt;" in body.html
    assert "== Dice duel: report for south ==" in body.text  # the shipped text report stays
    _, html = mailed("x", postman(renderer).render(report_letter(package, "opening", body)))
    assert html_check.document_problems(html) == [] and "House rules for south" in html


# -- the checks catch what they are for -------------------------------------------------------------


def test_the_document_check_finds_a_nested_document_and_remote_things() -> None:
    good = samples("duel")[0].html
    nested = good.replace("<h2", "<!DOCTYPE html><html><head><title>x</title></head><body><h2", 1)
    assert any("parse error" in p for p in html_check.document_problems(nested))
    remote = good.replace("<h2", '<img src="https://tracker.example/p.gif"><h2', 1)
    assert any("https://tracker.example" in p for p in html_check.document_problems(remote))
    font = good.replace("</style>", "@font-face { src: url(http://fonts.example/a.woff) }</style>", 1)
    assert any("fonts.example" in p for p in html_check.document_problems(font))
    assert html_check.external_urls('<a href="#top">x</a><a href="mailto:gm@example.org">y</a>') == []
    light_only = good.replace("prefers-color-scheme: dark", "prefers-color-scheme: light")
    assert "no <style> with @media (prefers-color-scheme: dark)" in html_check.document_problems(light_only)


def test_the_fragment_check_finds_document_tags() -> None:
    assert html_check.fragment_problems("<h2>a</h2><p>b</p><pre class='orders'>ORDERS\nEND</pre>") == []
    whole = "<!DOCTYPE html><html><head><title>t</title></head><body><h2>a</h2></body></html>"
    assert "<html> in a fragment" in html_check.fragment_problems(whole)
    assert "<h1> in a fragment" in html_check.fragment_problems("<h1>a</h1>")
    assert html_check.unwrapped_pre('<pre style="white-space: pre">x</pre>') != []


def test_the_width_check_is_wrap72s_own() -> None:
    prose = "a line of prose " * 5
    assert too_wide(prose) == [prose]
    assert too_wide("x" * 90) == []  # a token: it has no place to break
    assert too_wide(f"Game log chain head: {HEX}") == []
    assert too_wide(wrap72("word " * 40)) == []
    assert all(len(line) <= WIDTH for line in wrap72("prose " * 30).split("\n"))


def test_a_two_column_help_row_wraps_under_its_second_column() -> None:
    row = "  WEATHER n       the circled weather number, 1 to 4: how many d10s you roll (now 2)"
    first, *rest = wrap72(row).split("\n")
    assert first.startswith("  WEATHER n       the circled") and rest
    assert all(line.startswith(" " * 18) and line[18] != " " for line in rest)


# -- compiled once a process ------------------------------------------------------------------------


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates Jinja compiles from now on, in any environment."""
    compiled: list[str] = []
    real = Environment.compile

    def counted(self: Environment, source: str, name: str | None = None, *args: Any, **kw: Any) -> Any:
        compiled.append(str(name))
        return real(self, source, name, *args, **kw)

    monkeypatch.setattr(Environment, "compile", counted)
    return compiled


def test_a_second_renderer_uses_the_compiled_templates_of_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    Renderer(registry=REGISTRY).render("common/notice", {"title": "t", "lines": ["a"], "bot": "b"})
    compiled = _compiles(monkeypatch)
    again = Renderer(registry=REGISTRY).render("common/notice", {"title": "t", "lines": ["a"], "bot": "b"})
    assert compiled == [] and again.text.startswith("== t ==\na\n")


def test_an_edited_override_is_compiled_again_by_the_next_renderer(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    notice = tmp_path / "common" / "notice.txt.j2"
    notice.write_text("FIRST {{ title }}\n", "utf-8")
    first = Renderer(tmp_path, registry=REGISTRY).render(
        "common/notice", {"title": "t", "lines": [], "bot": "b"}
    )
    notice.write_text("SECOND {{ title }}\n", "utf-8")
    second = Renderer(tmp_path, registry=REGISTRY).render(
        "common/notice", {"title": "t", "lines": [], "bot": "b"}
    )
    assert (first.text, second.text) == ("FIRST t\n", "SECOND t\n")


def test_a_second_archive_environment_uses_the_compiled_pages_of_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = archive_pages.environment().list_templates()
    for name in names:
        archive_pages.environment().get_template(name)
    compiled = _compiles(monkeypatch)
    again = archive_pages.environment()
    for name in names:
        again.get_template(name)
    assert names and compiled == []
