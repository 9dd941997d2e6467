# SPDX-License-Identifier: GPL-3.0-or-later
"""Exporting a game's verifiable archive: ``game.json`` plus a stand-alone ``verify.py``.

Seeds appear only where they are revealed: with each step's results in games
without hidden information, and only when the game ends in games with it (a
revealed seed would expose the other side's rolls). Orders, sealed values and
rolls of steps still open are left out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from mailbot import verify_archive
from mailbot.services import chainlog
from mailbot.store.game_tables import Game, OrderSet, Report, RollRow, StepRow, StepState

FORMAT = "mailbot-archive-1"


def _step(session: Session, step: StepRow) -> dict[str, Any]:
    orders = session.exec(select(OrderSet).where(OrderSet.step_id == step.id, col(OrderSet.current))).all()
    rolls = session.exec(
        select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position))
    ).all()
    done = step.state is not StepState.OPEN
    return {
        "key": step.key,
        "attempt": step.attempt,
        "turn": step.turn,
        "kind": step.kind,
        "state": step.state.value,
        "commitment": step.commitment,
        "seed": step.seed if step.revealed else None,
        "orders_digest": step.orders_digest,
        "orders": {row.seat: list(row.lines) for row in orders} if done else {},
        "defaulted": sorted(row.seat for row in orders if row.defaulted) if done else [],
        "sealed": {row.seat: row.sealed for row in orders if row.sealed} if done else {},
        "rolls": [dict(row.data) for row in rolls],
    }


def export(session: Session, game_id: int, out: Path) -> Path:
    """Write ``out/game.json`` and ``out/verify.py``; returns the JSON path."""
    game = session.get_one(Game, game_id)
    steps = session.exec(select(StepRow).where(StepRow.game_id == game_id).order_by(col(StepRow.id))).all()
    reports = session.exec(select(Report).where(Report.game_id == game_id).order_by(col(Report.id))).all()
    data = {
        "format": FORMAT,
        "game": {
            "id": game.id,
            "plugin": game.plugin,
            "scenario": game.scenario,
            "title": game.title,
            "status": game.status.value,
            "result": game.result,
        },
        "steps": [_step(session, step) for step in steps],
        "chain": [entry.as_dict() for entry in chainlog.entries(session, game_id)],
        "reports": [
            {
                "seat": r.seat,
                "step": r.step_key,
                "chain_head": r.chain_head,
                "subject": r.subject,
                "text": r.text,
            }
            for r in reports
        ],
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / "game.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    shutil.copyfile(verify_archive.__file__, out / "verify.py")
    return path
