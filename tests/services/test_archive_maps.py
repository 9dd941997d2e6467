# SPDX-License-Identifier: GPL-3.0-or-later
"""A map's large shapes and legend kept once in an archive (``archive_maps.shared_shapes``), and
what a stylesheet in the map changes: a picture of its own is not styled by it; each label and
its halo one text (``archive_maps.merged_halos``), each text's attributes a rule of one
stylesheet (``archive_maps.shared_text_styles``), given back by verify.py."""

from __future__ import annotations

from mailbot.services.archive.archive_maps import (
    LAYERS_FOLDER,
    SHARED_SHAPE,
    TEXT_STYLES,
    merged_halos,
    shared_shapes,
    shared_text_styles,
)
from mailbot.verifier.maps import label_halos, text_styles

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="960" height="800" viewBox="0 0 960 800">'
CLOUDS = '<path d="M0,0' + "l1,1" * SHARED_SHAPE + '" fill="#cccccc" class="clouds" />'
LEGEND = '\n<g class="legend">\n<text x="1" y="2">Clouds</text>\n</g>'
VIEW = '<view id="inset" viewBox="0 0 240 180" />'


def shared(style: str) -> tuple[str, dict[str, bytes]]:
    files: dict[str, bytes] = {}
    svg = f'{HEAD}\n{style}\n{VIEW}\n{CLOUDS}\n<g class="labels" />{LEGEND}\n</svg>'
    return shared_shapes(svg, "../layers", files), files


def test_a_maps_view_rules_leave_its_clouds_and_legend_pictures_of_their_own() -> None:
    """A Flat Top map's inset labels: rules that apply only through its view, to its labels."""
    shown, files = shared("<style>#inset:target ~ .labels{display:none}</style>")
    assert 'class="clouds"' not in shown and 'class="legend"' not in shown
    assert len(files) == 2 and all(name.startswith(LAYERS_FOLDER) for name in files)


def test_a_shape_or_legend_a_stylesheet_may_style_stays_in_the_map() -> None:
    shown, files = shared(
        "<style>#inset:target ~ .clouds{display:none}#inset:target ~ .legend{display:none}</style>"
    )
    assert 'class="clouds"' in shown and 'class="legend"' in shown and files == {}
    for style in ("<style>path{fill:#ff0000}</style>", "<style><![CDATA[.a{}]]></style>"):
        shown, files = shared(style)
        assert CLOUDS in shown and files == {}, style


def _label(text: str, fill: str, extra: str = "") -> str:
    """A label as the map drawer writes it: its white halo, then the label over it."""
    at = 'x="4.0" y="9.5" font-size="10.0"'
    rest = f'text-anchor="end" font-weight="normal"{extra}'
    halo = 'fill="#ffffff" stroke="#ffffff" stroke-width="2.5" stroke-linejoin="round"'
    return f'<text {at} {halo} {rest}>{text}</text>\n<text {at} fill="{fill}" {rest}>{text}</text>'


def test_a_label_and_its_halo_are_one_text_that_verify_gives_back() -> None:
    svg = f"{HEAD}\n{_label('TF1 (8)', '#1d4ed8')}\n{_label('VI-M32', '#475569')}\n</svg>"
    shown = merged_halos(svg)
    assert shown.count("<text") == 2 and shown.count('paint-order="stroke"') == 2
    assert '<text x="4.0" y="9.5" font-size="10.0" fill="#1d4ed8" stroke="#ffffff"' in shown
    assert len(shown) < len(svg) * 0.75 and label_halos(shown) == svg


def test_a_halo_that_would_blend_or_not_come_back_stays_apart() -> None:
    faint = _label("planes C3", "#b91c1c", ' opacity="0.6"')
    seen_through = f"{HEAD}\n{faint}\n</svg>"
    assert merged_halos(seen_through) == seen_through  # two half-transparent texts blend otherwise
    # A map that already holds a label drawn over its own halo: verify.py would split it too.
    own = (
        '<text x="1" y="2" fill="#000000" stroke="#ffffff" stroke-width="1" stroke-linejoin="round" '
        'paint-order="stroke" a="b">X</text>'
    )
    svg = f"{HEAD}\n{own}\n{_label('TF1', '#1d4ed8')}\n</svg>"
    assert merged_halos(svg) == svg


def test_a_texts_attributes_are_a_rule_of_one_stylesheet_for_every_map() -> None:
    """Two maps, one stylesheet: each run of a text's presentation attributes a rule (its
    lengths in px), the text naming it; verify.py gives each map back as it was."""
    files: dict[str, bytes] = {}
    first = f'<?xml version="1.0"?>\n{HEAD}\n{merged_halos(_label("TF1", "#1d4ed8"))}\n</svg>'
    second = first.replace(">TF1<", ">TF2<").replace("#1d4ed8", "#b91c1c")
    shown = [shared_text_styles(svg, "../", files) for svg in (first, second)]
    sheet = files[TEXT_STYLES].decode()
    assert (
        sheet.count("\n") == 2 and "font-size:10.0px;fill:#1d4ed8;stroke:#ffffff;stroke-width:2.5px;" in sheet
    )
    for svg, page in zip((first, second), shown, strict=True):
        assert page.startswith(
            '<?xml version="1.0"?>\n<?xml-stylesheet type="text/css" href="../layers/texts.css"?>\n'
        )
        assert 'font-size="10.0"' not in page and text_styles(page, sheet) == svg
    assert text_styles(shown[0], sheet.replace("#1d4ed8", "#000000")) != first  # a rule edited shows


def test_a_map_its_rules_would_not_give_back_keeps_its_attributes() -> None:
    """A length given in px would come back bare: that map keeps its texts as they are."""
    files: dict[str, bytes] = {}
    svg = f'{HEAD}\n<text x="1" y="2" font-size="9px" fill="#000000">B</text>\n</svg>'
    assert shared_text_styles(svg, "../", files) == svg and files == {}
