# SPDX-License-Identifier: GPL-3.0-or-later
"""A seat's report is rendered once: the archive keeps, and the letter carries, the same text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from mailbot.render.templates import Rendered, Renderer
from mailbot.store.game_tables import Report
from tests.services.game_helpers import Harness, text
from tests.services.test_games_by_mail import NORTH, _started


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/r.db")
    yield harness
    harness.bot.engine.dispose()


def test_a_resolved_step_renders_each_report_once_and_sends_what_it_keeps(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, north_tag, _south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    renders: Counter[str] = Counter()
    real = Renderer.render

    def counting(self: Renderer, name: str, context: Mapping[str, Any]) -> Rendered:
        renders[name] += 1
        return real(self, name, context)

    monkeypatch.setattr(Renderer, "render", counting)
    sent = h.tick(2 * 24 * 3600)
    reports = [msg for msg in sent if "resolved" in str(msg["Subject"])]
    assert len(reports) == 2  # one to each seat
    # Every letter of the tick once (a report was rendered again for its letter after its archive copy).
    assert renders["common/letter"] == len(sent) > len(reports)
    with Session(h.bot.engine) as session:
        kept = session.exec(select(Report).where(Report.game_id == game_id).order_by(col(Report.id))).all()
    kept_texts = {row.text.strip() for row in kept[-2:]}
    assert {text(msg).replace("\r\n", "\n").strip() for msg in reports} == kept_texts
