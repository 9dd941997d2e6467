# SPDX-License-Identifier: GPL-3.0-or-later
"""Archives players can verify: export, the stand-alone verifier, and tampering caught."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot import verifier, verify_archive
from mailbot.core.dice import DiceStream, order_digest
from mailbot.services.archive.archive import export
from mailbot.store.game_tables import GameStatus, StepState
from mailbot.verifier.checker import verify
from mailbot.verifier.rules import faces
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import letter
from tests.services.test_games_by_mail import NORTH, SOUTH, _started
from tests.verifier.test_verify_tampering import Finished, finished_duel, with_texts


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/a.db")
    yield harness
    harness.bot.engine.dispose()


def _play_to_the_end(h: Harness) -> int:
    game_id, north_tag, south_tag = _started(h)
    for _ in range(20):
        if h.game(game_id).status is GameStatus.FINISHED:
            return game_id
        step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 1\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 0\n")
        else:
            h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
        h.tick(2 * 24 * 3600)
    raise AssertionError("the duel did not end")


def _export(h: Harness, game_id: int, out: Path) -> dict:
    with Session(h.bot.engine) as session:
        export(session, game_id, out)
    return with_texts(out, json.loads((out / "game.json").read_text()))


def test_finished_hidden_game_reveals_every_seed_and_verifies(h: Harness, tmp_path: Path) -> None:
    game_id = _play_to_the_end(h)
    data = _export(h, game_id, tmp_path / "arch")
    assert all(step["seed"] for step in data["steps"])
    checker = verify(tmp_path / "arch")
    assert checker.problems == [] and checker.failed == 0
    assert checker.rolls == sum(len(step["rolls"]) for step in data["steps"]) > 0
    done = subprocess.run(
        [sys.executable, "verify.py", "."], cwd=tmp_path / "arch", capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert (
        done.stdout.strip().splitlines()[-1] == f"verify: {checker.rolls} rolls, {checker.rolls} ok, 0 failed"
    )


def test_seeds_stay_secret_while_a_hidden_information_game_runs(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    letters = h.tick(2 * 24 * 3600)
    data = _export(h, game_id, tmp_path / "mid")
    assert [s["seed"] for s in data["steps"]] == [None] * len(data["steps"])
    for step in h.steps(game_id):
        assert all(step.seed not in text(m) for m in letters)
        assert any(step.commitment in text(m) for m in letters) or step.state is not StepState.OPEN
    done = subprocess.run(
        [sys.executable, "verify.py", "."], cwd=tmp_path / "mid", capture_output=True, text=True, check=False
    )
    # Not a bare "0 rolls": it says why nothing could be checked yet (issue 33).
    assert done.returncode == 0
    assert "not yet verifiable: the dice of 2 resolved step(s): while the game runs" in done.stdout


def test_verify_py_runs_the_archives_own_checker_with_python_alone(h: Harness, tmp_path: Path) -> None:
    """No site-packages (``-S``: no mailbot installed), the script's folder not on the path by
    itself (``-P``), and a ``verifier`` and a ``mailbot`` that fail when imported on the path
    before the standard library: verify.py still checks with the archive's own files, and
    leaves no compiled file in the archive."""
    game_id = _play_to_the_end(h)
    _export(h, game_id, tmp_path / "arch")
    shipped = sorted(p.relative_to(tmp_path / "arch").as_posix() for p in (tmp_path / "arch").rglob("*.py"))
    assert shipped == ["verifier/" + p.name for p in sorted(Path(verifier.__file__).parent.glob("*.py"))] + [
        "verify.py"
    ]
    decoys = tmp_path / "installed"
    for name in ("verifier", "mailbot"):
        (decoys / name).mkdir(parents=True)
        (decoys / name / "__init__.py").write_text("raise SystemExit('an installed copy was run')\n")
    done = subprocess.run(
        [sys.executable, "-S", "-P", "verify.py", "."],
        cwd=tmp_path / "arch",
        env={**os.environ, "PYTHONPATH": str(decoys)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith(" ok, 0 failed")
    assert not list((tmp_path / "arch").rglob("__pycache__"))


def test_the_shipped_checker_imports_the_standard_library_and_itself_only() -> None:
    files = [Path(verify_archive.__file__), *Path(verifier.__file__).parent.glob("*.py")]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [str(node.module)]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", f"{path.name} imports {name}"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Finished]:
    with finished_duel(tmp_path_factory.mktemp("finished"), _play_to_the_end) as done:
        yield done


@pytest.mark.parametrize("edit", ["roll", "order", "chain", "report"])
def test_tampering_is_found(finished: Finished, tmp_path: Path, edit: str) -> None:
    folder = tmp_path / edit
    data = finished.archive(folder)
    with_rolls = next(s for s in data["steps"] if s["rolls"])
    if edit == "roll":
        roll = with_rolls["rolls"][0]
        roll["faces"][0] = roll["faces"][0] % roll["sides"] + 1
        roll["total"] = sum(roll["faces"]) + sum(roll["modifiers"].values())
    elif edit == "order":
        seat = sorted(with_rolls["orders"])[0]
        with_rolls["orders"][seat][0] = with_rolls["orders"][seat][0].replace("1", "3").replace("2", "3")
    elif edit == "report":
        data["reports"][1]["text"] = data["reports"][1]["text"].replace("hit points", "hitpoints")
    else:
        data["chain"][3]["payload"]["tampered"] = True
    (folder / "game.json").write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, "-m", "mailbot", "verify", str(folder)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert "FAILED" in done.stdout
    if edit == "chain":
        assert "entry 3" in done.stdout
    if edit == "roll":
        # The roll does not re-derive, the roll log is not the one the chain committed to, and
        # its step's page shows the faces and total rolled: the summary counts every problem.
        assert "does not re-derive" in done.stdout and "roll log" in done.stdout
        assert "/0/faces reads" in done.stdout and "/0/total reads" in done.stdout
        assert done.stdout.strip().splitlines()[-1].endswith("4 failed")
    if edit == "report":
        assert "report 1" in done.stdout


def test_the_standalone_derivation_agrees_with_the_dice_stream() -> None:
    seed = bytes(range(32))
    digest = order_digest({"north": ["ATTACK 2"], "south": []})
    stream = DiceStream(seed, digest, "T3.orders")
    for label, sides, count in [("a", 6, 3), ("a", 6, 2), ("b", 10, 4), ("c", 7, 40)]:
        roll = stream.roll(label, sides, count)
        derived, _ = faces(seed, ("T3.orders", digest, label), sides, count, roll.counter)
        assert derived == list(roll.faces)


def test_sealed_values_stay_hidden_from_the_other_seat_until_opening(h: Harness) -> None:
    _, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(2 * 24 * 3600)
    letters = h.mail(NORTH, f"{north_tag} bid", "SEAL bid 3\n")
    letters += h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\n")  # replaced before opening: a new receipt
    south_saw = to(letters, SOUTH)
    assert south_saw and all("bid 3" not in text(m) and "bid 2" not in text(m) for m in south_saw)
    receipts = [
        line for m in to(letters, NORTH) for line in text(m).splitlines() if line.startswith("Receipt:")
    ]
    assert len(set(receipts)) == 2
    h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 0\n")
    h.tick(13 * 3600)  # the short bid step's deadline: opening
    (late,) = to(h.mail(NORTH, f"{north_tag} bid", "SEAL bid 1\n"), NORTH)
    assert "the open step is" in text(late) or "owes nothing" in text(late)


@pytest.mark.parametrize("message_id", ["<@evil.test>", "<>", "<[@]>"])
def test_a_malformed_message_id_is_stored_exported_and_redacted(
    h: Harness, tmp_path: Path, message_id: str
) -> None:
    """A seat's letter with a Message-ID the mail parser chokes on breaks neither the export
    nor the seat's own ARCHIVE request, and its secret is still cut from the header."""
    game_id, north_tag, _ = _started(h)
    secret = north_tag.strip("[]").split()[1]
    raw = letter(sender=NORTH, subject=f"{north_tag} orders", body="ORDERS\nATTACK 2\nEND\n", message_id=None)
    h.bot.inject(f"Message-ID: {message_id}\r\nX-Note: {secret}\r\n".encode() + raw)
    h.bot.processor.process_pending()
    h.flush()
    _export(h, game_id, tmp_path / "arch")
    mbox = (tmp_path / "arch" / "mail.mbox").read_bytes()
    assert f"Message-ID: {message_id}".encode() in mbox and b"ATTACK 2" in mbox
    assert secret.encode() not in mbox
    letters = to(h.mail(NORTH, f"{north_tag} archive", "ARCHIVE\n"), NORTH)
    zips = [p for m in letters for p in m.iter_attachments() if str(p.get_filename()).endswith(".zip")]
    assert len(zips) == 1


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--help"], 0, "--letters MAILBOX"),
        (["-h"], 0, "Saving your letters"),
        ([], 2, "usage:"),
        (["nowhere"], 2, "no game.json in nowhere"),
        ([".", "--letters"], 2, "expected one argument"),
    ],
)
def test_verify_py_explains_itself_without_a_traceback(
    tmp_path: Path, args: list[str], code: int, said: str
) -> None:
    script = Path(verify_archive.__file__)
    done = subprocess.run(
        [sys.executable, str(script), *args], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == code
    assert said in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
