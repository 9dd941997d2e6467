# SPDX-License-Identifier: GPL-3.0-or-later
"""A map's large shapes and legend kept once in an archive (``archive_maps.shared_shapes``), and
what a stylesheet in the map changes: a picture of its own is not styled by it."""

from __future__ import annotations

from mailbot.services.archive.archive_maps import LAYERS_FOLDER, SHARED_SHAPE, shared_shapes

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
