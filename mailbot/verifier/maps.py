# SPDX-License-Identifier: GPL-3.0-or-later
"""A map's file as the archive keeps it, put back as it was sent (archive format 3): its texts'
presentation attributes kept once for the site (``steps/layers/texts.css``), and a label that
draws its own halo where the map drew the halo as a text of its own under it."""

from __future__ import annotations

import re
from pathlib import Path

#: a map's label drawn over its own halo (``paint-order="stroke"``), where the map drew a halo
#: of its own under it: what ``label_halos`` puts back
HALOED_LABEL = re.compile(
    r'<text ([^<>]*?) fill="(#[0-9a-f]{6})" stroke="#ffffff" stroke-width="([\d.]+)" '
    r'stroke-linejoin="round" paint-order="stroke" ([^<>]*)>([^<]*)</text>'
)
#: a rule of ``steps/layers/texts.css``: a map text's presentation attributes, once for the site
TEXT_RULE = re.compile(r'^\[data-t="([0-9a-f]{8})"\]\{([^{}\n]*)\}$', re.MULTILINE)
#: where a map links that stylesheet, and where a text names its rule
TEXTS_LINK = re.compile(r'<\?xml-stylesheet type="text/css" href="(?:\.\./)*layers/texts\.css"\?>\n')
DATA_TEXT = re.compile(r' data-t="([0-9a-f]{8})"')


def label_halos(svg: str) -> str:
    """A map's file with each label that draws its halo itself (format 3: ``HALOED_LABEL``) put
    back as sent: the white halo, then the label over it, each a text of its own."""
    return HALOED_LABEL.sub(
        r'<text \1 fill="#ffffff" stroke="#ffffff" stroke-width="\3" stroke-linejoin="round" \4>\5</text>'
        "\n"
        r'<text \1 fill="\2" \4>\5</text>',
        svg,
    )


def map_text_styles(folder: Path, svg: str) -> str:
    """A map's file with its texts' presentation attributes kept once for the site (format 3:
    ``data-t``, a rule of ``steps/layers/texts.css``) put back as sent (:func:`text_styles`)."""
    if TEXTS_LINK.search(svg) is None:
        return svg
    css = folder / "steps" / "layers" / "texts.css"
    return text_styles(svg, css.read_bytes().decode("utf-8", "replace") if css.is_file() else "")


def text_styles(svg: str, sheet: str) -> str:
    """``svg`` with each text's ``data-t`` put back as the attributes its rule in ``sheet``
    stands for (``font-size:7.0px;fill:#8193a8`` for ``font-size="7.0" fill="#8193a8"``: a
    length's px taken off), and the link to the sheet taken out."""
    runs = {
        key: "".join(
            ' {}="{}"'.format(*declaration.split(":", 1)).replace('px"', '"')
            for declaration in css.split(";")
            if ":" in declaration
        )
        for key, css in TEXT_RULE.findall(sheet)
    }
    return DATA_TEXT.sub(
        lambda found: runs.get(found.group(1), found.group(0)), TEXTS_LINK.sub("", svg, count=1)
    )
