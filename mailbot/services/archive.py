# SPDX-License-Identifier: GPL-3.0-or-later
"""Exporting a game's verifiable archive: ``game.json`` plus a stand-alone ``verify.py``.

Seeds appear only where they are revealed: with each step's results in games
without hidden information, and only when the game ends in games with it (a
revealed seed would expose the other side's rolls). Orders, sealed values and
rolls of steps still open are left out. Each salt of a chain commitment goes
with the content it hides (an order set's, a report's), so everything in the
archive can be checked against the chain. No seat secret is exported: report
subjects lose their ``[DU-3 k7Q2]`` tag.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from mailbot import verify_archive
from mailbot.services import chainlog
from mailbot.services.games import tag, untagged
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
        "salts": {row.seat: row.salt for row in orders if row.salt} if done else {},
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
            "tag": tag(game),
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
                "subject": untagged(r.subject),
                "text": r.text,
                "salt": r.salt,
            }
            for r in reports
        ],
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / "game.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    shutil.copyfile(verify_archive.__file__, out / "verify.py")
    (out / "README.txt").write_text(ARCHIVE_README.format(title=game.title), encoding="utf-8")
    return path


ARCHIVE_README = """The archive of {title}
======================

game.json  every step (commitments, revealed seeds, orders, sealed values, rolls),
           the event chain and every report, with the salts of the chain's commitments
verify.py  the checker; it needs nothing but Python 3

Check the archive:            python3 verify.py .
Check it against your mail:   python3 verify.py . --letters YOUR_LETTERS

With --letters every report you received must state a chain head that is in
this archive's chain and be in the archive word for word, and the letter that
closed the game must name this chain's final head and length. Nobody can then
have rewritten the log after you were sent it.

Saving your letters (YOUR_LETTERS may be an mbox file, a Maildir folder, or a
folder of .eml files):
* Thunderbird: select the game's letters, File > Save As (one .eml each) into
  an empty folder; or the ImportExportTools NG add-on: export the folder as mbox.
* Apple Mail: select the letters, Mailbox > Export Mailbox (an mbox folder:
  pass the "mbox" file inside it).
* Gmail: Google Takeout, Mail, choose the label: you get an .mbox file.
* Outlook: drag each letter to a folder (.msg); save as .eml with "Save As"
  where offered, since .msg files are not read.
* mutt / neomutt: tag the letters and save them (s) into an mbox file.
* A Maildir on your own server: pass the folder that holds cur/ and new/.
"""
