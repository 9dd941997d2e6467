# SPDX-License-Identifier: GPL-3.0-or-later
"""Every demo game played once for the whole test run, from the installed wheel, as a user runs it.

A demo game is the same on every run of one seed (``demo/replay.py``), so the tests that read a
finished game's letters, mailboxes, database or archive need not each play it again: the suite
used to play the Flat Top demo three times and the duel's nine (half a minute of CPU for Flat
Top alone). The first test process that wants a game builds the wheel and installs it into a
fresh venv (``tests/wheel.py``, once for the run) and starts ``mailbot demo --game G --workdir
DIR`` with it in the background, under a file lock in the run's shared temporary folder; a
test that reads the game waits until its exit status is written. When the run holds such tests,
every game is started as the run begins (``tests/conftest.py``), so the test processes go on
with other tests meanwhile instead of waiting for a game, each in turn. What the command printed
is read back into the ``DemoResult`` that ``play_demo`` returned to it, so the tests read the
game and the command's lines alike.

The Flat Top game exports its archive with ``--archive`` into a folder of its own; the others
into their work folder, the default. A shared game's folders are read only: a test that changes
a game's files copies them first.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from mailbot.demo.run import DemoResult, MailboxFile
from tests.wheel import TAIL, Install, install_wheel

#: a whole demo game (the longest, Flat Top, takes about half a minute of CPU), or the wheel's build
PLAY_TIMEOUT = 300
#: the games that export their archive with --archive, away from their work folder
ARCHIVE_ELSEWHERE = ("flattop",)
#: how often a test waiting for a game looks whether it is over
POLL_SECONDS = 0.2
MAILBOX = re.compile(r"^(\S+\.mbox): (\d+) letters \(read with: mutt -f \1\)$")
WHERE = re.compile(r"^(letters|archive): (\S+)")
SEED = re.compile(r"^dice: demo seed '([^']*)'")


@dataclass(frozen=True)
class Played:
    """One finished demo game: what the command printed, read back, and its work folder."""

    result: DemoResult
    work: Path  # demo.db, mail/, letters/ (and archive/ but for ARCHIVE_ELSEWHERE)
    stdout: str
    stderr: str

    @property
    def archive(self) -> Path:
        assert self.result.archive is not None
        return self.result.archive


def read_result(stdout: str, stderr: str) -> DemoResult:
    """The ``DemoResult`` behind ``mailbot demo``'s lines: the summary (and battles) on stdout; the
    mailboxes, the seed, the letters and the archive on stderr."""
    summary, *rest = stdout.strip().splitlines()
    battles = next((line for line in rest if line.startswith("battles: ")), "")
    boxes, where, seed = [], {}, ""
    for line in stderr.splitlines():
        if kept := MAILBOX.match(line):
            path = Path(kept[1])
            boxes.append(MailboxFile(path.name.removesuffix(".mbox"), path, int(kept[2])))
        elif found := WHERE.match(line):
            where[found[1]] = Path(found[2])
        elif drawn := SEED.match(line):
            seed = drawn[1]
    archive = where["archive"].parent if "archive" in where else None  # it names the index page
    return DemoResult(summary, tuple(boxes), battles, seed, where.get("letters"), archive)


class DemoPlays:
    """Each demo game of the default seed, played once for every test process of the run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._running: list[subprocess.Popen[bytes]] = []  # started here (reaped when they end)
        self._starting: threading.Thread | None = None

    def install(self) -> Install:
        """The wheel, built and installed into a fresh venv once for the run."""
        folder, saved = self.root / "wheel", self.root / "wheel.json"
        with FileLock(str(self.root / "wheel.lock"), timeout=PLAY_TIMEOUT):
            if not saved.exists():
                folder.mkdir()
                install = install_wheel(folder)
                fields = [str(install.wheel), str(install.python), str(install.site_packages)]
                saved.write_text(json.dumps([*fields, str(install.elsewhere), install.env]), encoding="utf-8")
            wheel, python, site_packages, elsewhere, env = json.loads(saved.read_text(encoding="utf-8"))
            return Install(Path(wheel), Path(python), Path(site_packages), Path(elsewhere), env)

    def start(self, games: Sequence[str]) -> None:
        """Start playing ``games`` in the background, each once for the run: the tests that read
        them later find them played, or wait for them, while the other tests go on.

        The launching itself is done by a thread: the first game waits for the wheel to be
        built and installed (about 4 s), and every test process, finding the games' locks
        taken, waited that long before its first test. A launch that fails here is tried
        again by the first test that reads the game, which then says why."""
        self._starting = threading.Thread(target=self._start_all, args=(tuple(games),), daemon=True)
        self._starting.start()

    def _start_all(self, games: Sequence[str]) -> None:
        try:
            for game in games:
                self._started(game)
        except Exception:  # said again by the test that reads the game
            logging.getLogger(__name__).exception("starting the demo games")

    def wait_started(self) -> None:
        """Wait for the plays this process started (another process may still need them)."""
        if self._starting is not None:
            self._starting.join(timeout=PLAY_TIMEOUT)
        for process in list(self._running):
            process.wait(timeout=PLAY_TIMEOUT)

    def __call__(self, game: str) -> Played:
        folder = self._started(game)
        deadline = time.monotonic() + PLAY_TIMEOUT
        while not (folder / "exit").exists():  # written last, when the game is over
            assert time.monotonic() < deadline, f"the {game} demo did not end in {PLAY_TIMEOUT} s"
            time.sleep(POLL_SECONDS)
        for process in list(self._running):
            process.poll()  # reaped when over: a play started here need not be waited for again
        code = (folder / "exit").read_text(encoding="utf-8").strip()
        stdout, stderr = ((folder / name).read_text(encoding="utf-8") for name in ("stdout", "stderr"))
        assert code == "0" and stdout.startswith("demo:"), f"{game}: exit {code}\n{stdout}\n{stderr[-TAIL:]}"
        return Played(read_result(stdout, stderr), folder / "work", stdout, stderr)

    def _started(self, game: str) -> Path:
        """The game's folder, its play started by this process or another one."""
        folder = self.root / game
        with FileLock(str(self.root / f"{game}.lock"), timeout=PLAY_TIMEOUT):
            if not folder.exists():
                self._launch(game, folder)
        return folder

    def _launch(self, game: str, folder: Path) -> None:
        install = self.install()
        work = folder / "work"
        work.mkdir(parents=True)
        command: list[str | Path] = [install.python, "-m", "mailbot", "demo", "--game", game]
        command += ["--workdir", work]
        if game in ARCHIVE_ELSEWHERE:
            command += ["--archive", folder / "exported"]
        # The shell writes the exit status last, by a rename: a waiting process reads whole files.
        script = f"{shlex.join(map(str, command))} >stdout 2>stderr; echo $? >exit.part; mv exit.part exit"
        self._running.append(
            subprocess.Popen(["/bin/sh", "-c", script], cwd=folder, env=install.env, stdin=subprocess.DEVNULL)
        )
