# SPDX-License-Identifier: GPL-3.0-or-later
"""A map's board layers kept once (``render.maps.layers``, issue 32): cut out and put back byte
for byte, shown as pictures of their own in an archive's pages, and read back by verify.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from mailbot.render.maps import draw_map
from mailbot.render.maps import layers as layers_module
from mailbot.render.maps.layers import (
    cut_layers,
    factored,
    layer_bottom,
    layer_file,
    restored,
    sheet_width,
    with_pictures,
)
from mailbot.verifier.checker import Checker
from tests.render.test_maps import flattop_model


def _map() -> str:
    picture = draw_map("flattop", {"map": flattop_model()})
    assert picture is not None
    return picture.svg


def test_a_layer_cut_out_again_is_found_whole_by_its_text_or_walked_when_it_differs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A board cut out lately is found again by comparing its text (no walk through its groups);
    a layer that opens alike and differs inside is walked to its own end."""
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    board = '<g data-layer="9"><g class="a"><text>x</text></g></g>'
    other = '<g data-layer="9"><g class="a"><text>x</text></g><g class="b"><g /></g></g>'

    def svg(layer: str) -> str:
        return f'{head}{layer}<rect width="1" height="1" /></svg>'

    rest = f'{head}<g data-layer-ref="0" /><rect width="1" height="1" /></svg>'
    assert cut_layers(svg(board)) == (rest, [(board, 9.0)])
    assert cut_layers(svg(other)) == (rest, [(other, 9.0)])

    def walked(*_: object) -> int:
        raise AssertionError("walked")

    monkeypatch.setattr(layers_module, "_group_end", walked)
    assert cut_layers(svg(board)) == (rest, [(board, 9.0)])
    assert cut_layers(svg(other)) == (rest, [(other, 9.0)])


def test_a_map_factored_is_restored_byte_for_byte() -> None:
    svg = _map()
    overlay, layers = factored(svg)
    assert len(layers) == 2 and len(overlay) < len(svg)  # the printed board: under and over the weather
    assert all(text not in overlay for text in layers.values())
    assert restored(overlay, layers) == svg
    # The next hour's map has the same board: the same layers, by digest.
    later = draw_map("flattop", {"map": flattop_model(time="D1 0800")})
    assert later is not None and factored(later.svg)[1] == layers
    # A layer missing stays a reference: the map is then not the one sent.
    one = next(iter(layers))
    assert restored(overlay, {one: layers[one]}) != svg


def test_verify_reads_a_pages_map_back_from_its_layer_pictures(tmp_path: Path) -> None:
    svg = _map()
    overlay, layers = factored(svg)
    width = sheet_width(svg)
    for key, text in layers.items():
        path = tmp_path / "steps" / "layers" / f"{key}.svg"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(layer_file(text, width, layer_bottom(text)), encoding="utf-8")
    page = tmp_path / "steps" / "T1.orders" / "004-allied-map.svg"
    page.parent.mkdir(parents=True)
    page.write_text(with_pictures(overlay, lambda key: f"../layers/{key}.svg"), encoding="utf-8")
    assert '<image href="../layers/' in page.read_text(encoding="utf-8")
    checker = Checker()
    checker.folder = tmp_path
    assert checker.map_of({"map_file": "steps/T1.orders/004-allied-map.svg"}) == svg
    # A layer file changed is not put back: the map read is no longer the one sent.
    (tmp_path / "steps" / "layers" / f"{next(iter(layers))}.svg").write_text("<svg/>", encoding="utf-8")
    assert checker.map_of({"map_file": "steps/T1.orders/004-allied-map.svg"}) != svg
    # game.json's own form: the layers by digest beside the map.
    checker.map_layers = layers
    assert checker.whole_map(overlay) == svg
    assert checker.map_of({"map_file": "../outside.svg"}) == "" and len(checker.problems) == 1
