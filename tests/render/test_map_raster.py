# SPDX-License-Identifier: GPL-3.0-or-later
"""The fast map PNG (``render.maps.raster``): cairosvg's picture, quicker.

Every picture is compared with what cairosvg makes of the same SVG, pixel by pixel after
decoding both PNGs: the painter must show what the SVG says, no more and no less. The cache
of long paths' layers is checked by painting with it full and empty.
"""

from __future__ import annotations

import builtins
import io
import random
import re
import zlib
from collections.abc import Iterator
from typing import Any

import cairosvg
import pytest
from PIL import Image, ImageChops

from mailbot.games.flattop import worlds as fw
from mailbot.render.maps import PNG_WIDTH, MapError, MapPicture, draw_map, raster
from mailbot.render.maps.svgsubset import view_rules
from tests.render.test_flattop_map_inset import crowded_coral_sea
from tests.render.test_maps import flattop_model, saltntar_view

SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">'


def empty_caches() -> None:
    raster.layer.cache_clear()
    raster.clear_board_layers()


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    """Each test starts and ends with no layers kept, so no test depends on another's pictures."""
    empty_caches()
    yield
    empty_caches()


def pixels(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGBA")


def worst_difference(ours: bytes, theirs: bytes) -> int:
    """The largest difference of one channel of one pixel between two PNGs of the same size."""
    a, b = pixels(ours), pixels(theirs)
    assert a.size == b.size
    return max(high for _, high in ImageChops.difference(a, b).getextrema())


def by_cairosvg(svg: str, width: int = PNG_WIDTH) -> bytes:
    data: bytes = cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=width)
    return data


def real_flattop_svgs() -> list[str]:
    """Both sides' maps of a small game under way (units, contacts, AF paths)."""
    state = fw.searched()
    svgs = []
    for seat in ("allied", "japanese", None):
        picture = draw_map("flattop", fw.GAME.view(state, (), seat))
        assert picture is not None
        svgs.append(picture.svg)
    return svgs


def every_map() -> list[str]:
    saltntar = [draw_map("saltntar", saltntar_view(s, seats)) for s, seats in SALTNTAR]
    made = [draw_map("flattop", {"map": flattop_model()}), *saltntar]
    return [p.svg for p in made if p is not None] + real_flattop_svgs()


SALTNTAR = [("race", ("red", "blue")), ("hex-chase", ("merchant", "viking"))]


# --- the picture ---------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [PNG_WIDTH, 360, 900])
def test_every_drawer_map_is_painted_as_cairosvg_paints_it(width: int) -> None:
    for svg in every_map():
        ours = raster.render(svg, width)
        assert ours is not None, "a drawer wrote SVG the fast painter does not know: teach raster/paint.py"
        assert worst_difference(ours, by_cairosvg(svg, width)) <= 2


def test_a_map_whose_last_row_is_half_covered_keeps_its_alpha_as_cairo_writes_it() -> None:
    # 480 x 332.1 units at 640 px: 442.8 rows, rounded up to 443, the last one 80 % covered
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="332.1" viewBox="0 0 480 332.1">'
        '<rect x="0" y="0" width="480" height="332.1" fill="#ffffff" />'
        '<circle cx="240" cy="160" r="90" fill="#1d4ed8" stroke="#ffffff" stroke-width="1" /></svg>'
    )
    ours = raster.render(svg, PNG_WIDTH)
    assert ours is not None
    assert Image.open(io.BytesIO(ours)).mode == "RGBA"
    image = pixels(ours)
    assert image.height == 443 and image.getpixel((5, 442))[3] == 204  # translucent, not painted white
    assert image.getpixel((5, 441))[3] == 255
    assert worst_difference(ours, by_cairosvg(svg)) <= 2


@pytest.mark.parametrize(
    "element",
    [
        '<ellipse cx="5" cy="5" rx="3" ry="2" />',
        '<rect x="1" y="1" width="5" height="5" transform="rotate(10)" />',
        '<path d="M1,1Q5,5 9,1" />',
        '<path d="M1,1 C2,2 3,3 4,4" />',
        '<rect x="1" y="1" width="5" height="5" fill="url(#g)" />',
        '<rect x="1" y="1" width="5" height="5" fill="red" />',
        '<rect x="1" y="1" width="5" height="5" style="fill:#ff0000" />',
        '<text x="1" y="9" font-size="8"><tspan>A</tspan></text>',
        '<text x="1" y="9" font-size="8em">A</text>',
        '<svg width="5" height="5" />',
        "<style>rect{fill:#ff0000}</style>",
        "<style>#v:target ~ .a{display:none} rect{fill:#ff0000}</style>",
    ],
)
def test_svg_beyond_the_painters_part_goes_to_cairosvg_and_still_becomes_a_picture(element: str) -> None:
    svg = f'{SVG_HEAD}<rect width="100" height="50" fill="#ffffff" />{element}</svg>'
    assert raster.render(svg, 200) is None
    assert MapPicture(svg).png(200) == by_cairosvg(svg, 200)


def test_a_view_its_rules_and_a_hidden_group_are_painted_as_cairosvg_paints_them() -> None:
    """A map's inset labels: a view, a stylesheet of rules for it alone (painted whole, no rule
    applies) and a group not displayed (its labels, hidden on the theatre map)."""
    assert view_rules("#inset:target ~ .a{display:none}#inset:target ~ .b{display:inline}") == {"a", "b"}
    assert view_rules("#inset:target ~ .a{display:none} .b{display:none}") is None
    svg = (
        f'{SVG_HEAD}<rect width="100" height="50" fill="#ffffff" />'
        "<style>#v:target ~ .b{display:inline}#v:target ~ .a{display:none}</style>"
        '<view id="v" viewBox="0 0 50 25" />'
        '<g class="a"><circle cx="20" cy="20" r="9" fill="#1d4ed8" /></g>'
        '<g class="b" display="none"><circle cx="60" cy="20" r="9" fill="#b91c1c" /></g></svg>'
    )
    ours = raster.render(svg, 200)
    assert ours is not None and worst_difference(ours, by_cairosvg(svg, 200)) <= 2
    image = pixels(ours)
    assert image.getpixel((40, 40))[:3] == (29, 78, 216) and image.getpixel((120, 40))[:3] == (255, 255, 255)


def test_a_viewbox_that_stretches_the_drawing_goes_to_cairosvg() -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="10 0 100 40"></svg>'
    assert raster.render(svg, 200) is None


@pytest.mark.parametrize("shift", ["32 48", "33.3 47.1"])
def test_a_window_on_the_drawing_is_painted_as_cairosvg_paints_it(shift: str) -> None:
    """A map's inset: the same SVG, a viewBox around part of it. Moved by whole pixels, its
    board layer is the unmoved one shifted; by a fraction, painted for the window: both as
    cairosvg paints them."""
    model = crowded_coral_sea()
    picture = draw_map("flattop", {"map": model})
    assert picture is not None and picture.inset is not None
    window = re.sub(r'viewBox="[\d.]+ [\d.]+ ', f'viewBox="{shift} ', picture.inset, count=1)
    for svg in (picture.inset, window):
        ours = raster.render(svg, 480)
        assert ours is not None
        assert worst_difference(ours, by_cairosvg(svg, 480)) <= 2


def test_group_opacity_applies_to_the_group_and_a_leafs_to_itself() -> None:
    shapes = (
        '<rect width="100" height="50" fill="#ffffff" />'
        '<g opacity="0.5"><rect x="10" y="10" width="40" height="30" fill="#1d4ed8" />'
        '<rect x="30" y="20" width="40" height="25" fill="#b91c1c" stroke="#000000" stroke-width="2" /></g>'
        '<circle cx="80" cy="25" r="10" fill="#0f766e" opacity="0.4" stroke="#ffffff" />'
        '<path d="M5,45 H60 V40 L5,40 Z" fill="none" stroke="#c2410c" stroke-dasharray="3,2" '
        'stroke-linecap="round" stroke-linejoin="bevel" />'
        '<text x="50" y="30" font-size="12" text-anchor="middle" font-weight="bold" fill="#1f2937" '
        'stroke="#ffffff" stroke-width="3" stroke-linejoin="round" fill-opacity="0.7">Mid</text>'
    )
    svg = f"{SVG_HEAD}{shapes}</svg>"
    ours = raster.render(svg, 400)
    assert ours is not None
    assert worst_difference(ours, by_cairosvg(svg, 400)) <= 2


def test_a_transparent_picture_keeps_its_alpha_and_its_edges_colour() -> None:
    # the circle's antialiased edge is translucent: its colour is written unpremultiplied
    svg = f'{SVG_HEAD}<circle cx="50" cy="25" r="10" fill="#1d4ed8" /></svg>'
    ours = raster.render(svg, 200)
    assert ours is not None
    assert worst_difference(ours, by_cairosvg(svg, 200)) <= 2
    assert pixels(ours).getpixel((0, 0))[3] == 0


def test_an_opaque_picture_is_written_without_alpha() -> None:
    svg = f'{SVG_HEAD}<rect width="100" height="50" fill="#ffffff" /><circle cx="50" cy="25" r="9" /></svg>'
    ours = raster.render(svg, 200)  # 200 x 100 pixels: the sheet covers every one
    assert ours is not None
    assert Image.open(io.BytesIO(ours)).mode == "RGB"


def test_a_maps_alpha_is_only_where_its_sheet_was_rounded_up() -> None:
    for svg in real_flattop_svgs():
        ours = raster.render(svg, PNG_WIDTH)
        assert ours is not None
        picture = Image.open(io.BytesIO(ours))
        if picture.mode == "RGB":
            continue
        alpha = picture.getchannel("A")
        above_last_row = alpha.crop((0, 0, picture.width, picture.height - 1))
        assert above_last_row.getextrema() == (255, 255)


# --- the caches ----------------------------------------------------------------------------------


def test_the_same_svg_gives_the_same_bytes_with_full_or_empty_caches() -> None:
    svgs = every_map()
    first = [raster.render(svg, PNG_WIDTH) for svg in svgs]
    again = [raster.render(svg, PNG_WIDTH) for svg in reversed(svgs)][::-1]  # every cache warm
    assert raster.layer.cache_info().hits > 0
    empty_caches()
    fresh = [raster.render(svg, PNG_WIDTH) for svg in svgs]
    assert first == again == fresh


def test_a_layer_is_kept_for_its_path_paint_place_and_size_only() -> None:
    grid = "".join(f"M{x},1L{x},49" for x in range(1, 99, 1)) * 16  # long enough for a layer
    assert len(grid) >= raster.LAYER_MIN

    def svg(stroke: str) -> str:
        path = f'<path d="{grid}" fill="none" stroke="{stroke}" />'
        return f'{SVG_HEAD}<rect width="100" height="50" fill="#ffffff" />{path}</svg>'

    blue, red = raster.render(svg("#1d4ed8"), 300), raster.render(svg("#b91c1c"), 300)
    assert blue is not None and red is not None and blue != red
    assert raster.render(svg("#1d4ed8"), 200) != blue  # another size: another layer
    assert raster.layer.cache_info().misses == 3
    assert raster.render(svg("#1d4ed8"), 300) == blue and raster.layer.cache_info().hits == 1
    assert worst_difference(blue, by_cairosvg(svg("#1d4ed8"), 300)) <= 2


def test_two_sides_maps_drawn_in_turn_are_each_their_own() -> None:
    """Kept layers are found by content: one side's picture never shows in another's."""
    allied, japanese, referee = real_flattop_svgs()
    alone = {}
    for name, svg in (("allied", allied), ("japanese", japanese), ("referee", referee)):
        empty_caches()
        alone[name] = raster.render(svg, PNG_WIDTH)
    empty_caches()
    turns = [("allied", allied), ("japanese", japanese), ("referee", referee)] * 2
    assert all(raster.render(svg, PNG_WIDTH) == alone[name] for name, svg in turns)


@pytest.mark.parametrize(
    "missing", [OSError("no library called cairo"), ModuleNotFoundError("No module named 'PIL'")]
)
def test_a_picture_without_cairo_or_pillow_is_a_map_error(
    monkeypatch: pytest.MonkeyPatch, missing: Exception
) -> None:
    real_import = builtins.__import__

    def no_cairo(name: str, *args: Any, **kwargs: Any) -> Any:
        fromlist = args[2] if len(args) > 2 else kwargs.get("fromlist")
        if fromlist and "raster" in fromlist:
            raise missing
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cairo)
    with pytest.raises(MapError, match="cairo library or Pillow cannot be loaded"):
        MapPicture(f"{SVG_HEAD}</svg>").png()


# --- the board's layers --------------------------------------------------------------------------


def board_svg(land: str, overlay: str = "") -> str:
    board = (
        f'<g class="board" data-layer="40"><rect x="0" y="0" width="100" height="40" fill="#e8f1fa" />'
        f'<g class="island"><path d="M10,10L30,10L30,30Z" fill="{land}" /></g>'
        f'<text x="50" y="20" font-size="8" font-family="DejaVu Sans">Rabaul</text></g>'
    )
    return f'{SVG_HEAD}<rect width="100" height="50" fill="#ffffff" />{board}{overlay}</svg>'


def test_a_board_layer_is_cut_out_painted_once_and_found_again_by_its_text() -> None:
    one = board_svg("#d8c8a0", '<circle cx="60" cy="25" r="6" fill="#1d4ed8" />')
    rest, layers = raster.cut_layers(one)
    assert "Rabaul" not in rest and '<g data-layer-ref="0" />' in rest
    assert len(layers) == 1 and "Rabaul" in layers[0][0] and layers[0][1] == 40.0
    first = raster.render(one, 300)
    assert first is not None and len(raster._board_layers) == 1
    assert raster.render(one, 300) == first and len(raster._board_layers) == 1
    assert worst_difference(first, by_cairosvg(one, 300)) <= 2
    other = board_svg("#b91c1c", '<circle cx="60" cy="25" r="6" fill="#1d4ed8" />')
    second = raster.render(other, 300)
    assert second is not None and second != first and len(raster._board_layers) == 2
    assert worst_difference(second, by_cairosvg(other, 300)) <= 2


def test_a_board_layer_beyond_the_painters_part_sends_the_picture_to_cairosvg() -> None:
    svg = board_svg("#d8c8a0").replace('<path d="M10,10L30,10L30,30Z"', '<path d="M10,10C20,0 30,20 30,30Z"')
    assert raster.render(svg, 200) is None
    assert MapPicture(svg).png(200) == by_cairosvg(svg, 200)


def test_a_palette_map_is_the_same_bytes_with_its_board_and_palette_kept_or_not() -> None:
    svgs = real_flattop_svgs()
    first = [raster.render(svg, PNG_WIDTH, 64) for svg in svgs]
    assert raster.palette_of.cache_info().misses > 0
    again = [raster.render(svg, PNG_WIDTH, 64) for svg in reversed(svgs)][::-1]
    assert raster.palette_of.cache_info().hits > 0
    empty_caches()
    assert first == again == [raster.render(svg, PNG_WIDTH, 64) for svg in svgs]
    for png in first:
        assert png is not None and Image.open(io.BytesIO(png)).mode == "P"


def test_a_palette_map_in_kept_bands_is_the_whole_sheet_quantised_and_deflated_in_bands() -> None:
    """Bands kept by their pixels give the bytes of the sheet quantised whole, then deflated band
    by band (what ``palette_png`` wrote before it kept bands), and a sheet painted again reuses
    every band."""
    svg = real_flattop_svgs()[0]
    banded = raster.render(svg, PNG_WIDTH, 64)
    assert banded is not None and raster._quantised
    decoded = Image.open(io.BytesIO(banded))
    width, height = decoded.size
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(decoded, (1, 0))
    whole = raster.deflate_in_bands(framed.tobytes(), (width + 1) * raster.BAND_ROWS)
    assert whole in banded
    made = {id(band) for bands in raster._quantised.values() for band in bands}
    assert raster.render(svg, PNG_WIDTH, 64) == banded
    assert {id(band) for bands in raster._quantised.values() for band in bands} == made


@pytest.mark.parametrize("lengths", [(0, 0), (1, 70000), (65521, 3), (200000, 65522)])
def test_two_adler32_checksums_combine_into_the_whole(lengths: tuple[int, int]) -> None:
    rng = random.Random(sum(lengths))
    first, second = (rng.randbytes(n) for n in lengths)
    combined = raster.adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
    assert combined == zlib.adler32(first + second)


def test_a_text_is_painted_once_and_composited_where_it_was_kept_or_not() -> None:
    svgs = every_map()
    first = [raster.render(svg, PNG_WIDTH) for svg in svgs]
    assert raster._texts
    again = [raster.render(svg, PNG_WIDTH) for svg in svgs]
    empty_caches()
    assert not raster._texts
    assert first == again == [raster.render(svg, PNG_WIDTH) for svg in svgs]


def test_a_text_at_the_sheets_edge_is_painted_on_the_sheet_as_cairosvg_paints_it() -> None:
    paint = 'font-size="12" fill="#1f2937" stroke="#ffffff" stroke-width="2"'
    texts = "".join(
        f'<text x="{x}" y="{y}" {paint}>Edge {x}</text>'
        for x, y in ((0, 10), (250, 99.5), (500, 30), (150, 50))
    )
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100.3" viewBox="0 0 300 100.3">'
    svg = f'{head}<rect width="300" height="100.3" fill="#ffffff" />{texts}</svg>'
    ours = raster.render(svg, 300)
    assert ours is not None and len(raster._texts) == 1  # only the one well inside
    assert worst_difference(ours, by_cairosvg(svg, 300)) <= 2


def test_a_bank_of_hexes_drawn_as_its_outline_fills_what_its_hexes_fill() -> None:
    from mailbot.games.flattop.drawing import board as flattop
    from mailbot.games.flattop.map.hexes import Hex, within
    from mailbot.render.maps import canvas as cv

    board = flattop.board_for([0, 0, 11, 11])
    ring = sorted({*within(Hex(5, 5), 3)} - {Hex(5, 5), Hex(5, 4)}, key=lambda h: (h.col, h.row))  # a hole
    hexes = [*ring, Hex(10, 10), Hex(0, 0)]
    size = f'width="{flattop.SHEET}" height="600" viewBox="0 0 {flattop.SHEET} 600"'
    head = f'<svg xmlns="http://www.w3.org/2000/svg" {size}>'

    def picture(d: str) -> bytes | None:
        return raster.render(f'{head}<path d="{d}" fill="#c9ced4" fill-opacity="0.55" /></svg>', 480)

    each = "".join(cv.polygon(board.corners(h)) for h in hexes)
    union = flattop.union_outline(board, hexes)
    assert union.count("M") == 4 and len(union) < len(each) / 3
    one, other = picture(union), picture(each)
    assert one is not None and other is not None and worst_difference(one, other) <= 1
