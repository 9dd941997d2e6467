# SPDX-License-Identifier: GPL-3.0-or-later
"""verify.py on a damaged archive: every file it reads that is missing, not JSON or of the wrong
shape is said in a line (``FAILED`` and exit 1 for the archive, a usage line and exit 2 for a
mailbox that is not there), never a traceback. Each case runs the archive's own verify.py in a
subprocess, as a player would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mailbot.services.archive.archive import ship_verifier
from mailbot.verifier.checker import Checker
from mailbot.verifier.rules import GENESIS, entry_hash

EMPTY: dict[str, Any] = {"format": "mailbot-archive-3", "game": {}, "chain": [], "steps": [], "reports": []}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An archive's verify.py and verifier/, and a game.json with nothing in it that verifies."""
    out = tmp_path / "arch"
    out.mkdir()
    ship_verifier(out)
    (out / "game.json").write_text(json.dumps(EMPTY))
    return out


def run(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(folder / "verify.py"), str(folder), *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def failed(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The FAILED lines, after checking that the summary counts them and the exit is 1."""
    lines = [line for line in done.stdout.splitlines() if line.startswith("FAILED: ")]
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines()[-1].endswith(f", {len(lines)} failed"), done.stdout
    return lines


def test_an_empty_archive_verifies(folder: Path) -> None:
    done = run(folder)
    assert done.returncode == 0 and done.stdout == "verify: 0 rolls, 0 ok, 0 failed\n"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"{\n", "is not valid JSON: Expecting property name enclosed in double quotes at line 2, column 1"),
        (b"", "is not valid JSON: Expecting value at line 1, column 1"),
        (b"\xff\xfe{}", "is not UTF-8 text (byte 0 is not)"),
        (b"[]", "is not a JSON object but a list"),
        (b"null", "is not a JSON object but null"),
        (b"[" * 100_000, "is not valid JSON: nested too deep to read"),
        # a roll's count of 5,000 digits: more than Python reads as a number
        (
            b'{"n": ' + b"9" * 5000 + b"}",
            "cannot be read: Exceeds the limit (4300 digits) for integer string conversion: "
            "value has 5000 digits",
        ),
    ],
)
def test_a_game_json_that_cannot_be_read_fails_naming_the_file(
    folder: Path, content: bytes, said: str
) -> None:
    (folder / "game.json").write_bytes(content)
    assert failed(run(folder)) == [f"FAILED: {folder / 'game.json'} {said}"]


def test_mailbot_verify_says_it_the_same_way(folder: Path) -> None:
    (folder / "game.json").write_text("{")
    done = subprocess.run(
        [sys.executable, "-m", "mailbot", "verify", str(folder)], capture_output=True, text=True, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert failed(done) == [f"FAILED: {folder / 'game.json'} is not valid JSON: {_unclosed()}"]


def _unclosed() -> str:
    return "Expecting property name enclosed in double quotes at line 1, column 2"


def _entry(n: int, kind: str, payload: dict[str, Any], prev: str) -> dict[str, Any]:
    made = entry_hash(n, kind, payload, prev)
    return {"index": n, "kind": kind, "prev_hash": prev, "hash": made, "payload": payload}


STEP = {"key": "T1", "attempt": 1, "commitment": "c0", "state": "open", "rolls": []}
ROLL = {"label": "d", "sides": 6, "count": 1, "counter": 0, "faces": [3], "modifiers": {}, "total": 3}
DONE = {"orders": {}, "orders_digest": ""}
REPORT = {"seat": "north", "step": "T1", "chain_head": GENESIS, "text": "x"}


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"chain": 1}, "game.json: 'chain' is a number"),
        ({"steps": None}, "game.json: 'steps' is null"),
        (
            {"chain": [{"kind": "x"}]},
            "game.json: chain entry 0 has no 'index', 'prev_hash', 'hash', 'payload'",
        ),
        ({"chain": ["x"]}, "game.json: chain entry 0 is a text, not an object"),
        ({"steps": [{**STEP, "attempt": "1"}]}, "game.json: step 0: 'attempt' is a text"),
        ({"steps": [{**STEP, "seed": "zz", **DONE}]}, "game.json: step 0: its seed is not hexadecimal"),
        ({"steps": [{**STEP, "seed": "00"}]}, "its seed is revealed, but its orders or their digest are"),
        ({"steps": [{**STEP, "rolls": [{**ROLL, "sides": 0}]}]}, "out of range"),
        ({"steps": [{**STEP, "rolls": [{**ROLL, "faces": ["3"]}]}]}, "its faces are not all numbers"),
        ({"steps": [{**STEP, "orders": {"north": "ATTACK 2"}}]}, "the orders of north are not a list"),
        ({"steps": [{**STEP, "sealed": {"north": {"bid": {"value": "2"}}}}]}, "bid has no 'salt', 'receipt'"),
        ({"reports": [{**REPORT, "salt": "xyz"}]}, "game.json: report 0: its salt is not hexadecimal"),
        ({"reports": [{**REPORT, "html_swaps": [["a"]]}]}, "its html_swaps are not pairs"),
        ({"reports": [{**REPORT, "map_file": 7}]}, "game.json: report 0: 'map_file' is a number"),
        ({"map_layers": ["a"]}, "game.json: 'map_layers' is not an object of texts"),
    ],
)
def test_a_game_json_of_the_wrong_shape_fails_naming_the_field(
    folder: Path, edit: dict[str, Any], said: str
) -> None:
    (folder / "game.json").write_text(json.dumps({**EMPTY, **edit}))
    lines = failed(run(folder))
    assert len(lines) == 1 and said in lines[0], lines


def test_a_payload_the_checks_cannot_read_fails_that_part_only(folder: Path) -> None:
    """A step-opened entry without its commitment (hashed as it is: the chain holds)."""
    chain = [_entry(0, "step-opened", {"step": "T1", "attempt": 1}, GENESIS)]
    (folder / "game.json").write_text(json.dumps({**EMPTY, "chain": chain, "steps": [STEP]}))
    lines = failed(run(folder))
    assert lines == ["FAILED: game.json's steps cannot be checked (KeyError: 'commitment')"]


@pytest.mark.parametrize("given", ["--letters", "--sent"])
def test_a_mailbox_that_is_not_there_is_a_usage_line(folder: Path, given: str) -> None:
    extra = [given, str(folder / "nowhere.mbox")] if given == "--letters" else [
        "--letters", str(folder / "game.json"), given, str(folder / "nowhere.mbox")]  # fmt: skip
    done = run(folder, *extra)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"verify.py: {given} {folder / 'nowhere.mbox'}: no such mailbox, folder or file\n"


def test_verify_py_without_its_folder_says_so(folder: Path, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "verify.py").write_bytes((folder / "verify.py").read_bytes())
    (alone / "game.json").write_text(json.dumps(EMPTY))
    done = subprocess.run(
        [sys.executable, "-S", str(alone / "verify.py"), str(alone)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "keep verify.py and verifier/ of the archive together" in done.stderr


def test_a_map_file_that_is_not_utf8_is_a_map_that_fails_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "map.svg").write_bytes(b"<svg>\xff\xfe</svg>")
    (tmp_path / "steps" / "layers").mkdir(parents=True)
    (tmp_path / "steps" / "layers" / ("0" * 64 + ".svg")).write_bytes(b"\xff")
    checker = Checker()
    checker.folder = tmp_path
    assert checker.map_of({"map_file": "map.svg"}) == "<svg>\ufffd\ufffd</svg>"
    picture = f'<image href="layers/{"0" * 64}.svg" x="0" y="0" width="1" height="1" />'
    (tmp_path / "map.svg").write_text(f"<svg>{picture}</svg>")
    assert checker.map_of({"map_file": "map.svg"}) == f"<svg>{picture}</svg>"  # not that layer's text
