# SPDX-License-Identifier: GPL-3.0-or-later
"""A step's maps painted side by side (``mailbot.render.maps.painting``): the picture process
paints the same bytes as this process, and a process that dies, hangs, or does not know the
game costs no letter its picture."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mailbot import render
from mailbot.registry import Registry
from mailbot.render.maps import MapError, painting
from mailbot.render.maps.painting import Job, Painted, Painter, PictureProcess, paint
from tests.played import played
from tests.procs import alive

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def process() -> Iterator[PictureProcess]:
    """A picture process of the test's own, started and ready."""
    started = PictureProcess()
    painter = Painter(apart=True, process=started)
    painter.paint_all(flattop_hours()[0])  # the first step starts it and is painted here
    assert started.wait_ready(60) and started.pid is not None
    yield started
    started.stop()


def flattop_hours(count: int = 6) -> list[list[Job]]:
    """Both sides' views of the Flat Top demo's first hours."""
    log = played("flattop")
    plugin = log.package.game
    hours = []
    for record in log.steps[:count]:
        state = record.outcome.state
        hours.append(
            [("flattop", plugin.view(state, record.outcome.events, seat)) for seat in ("allied", "japanese")]
        )
    return hours


def painted_here(jobs: list[Job]) -> list[Painted | None]:
    return [paint(game, view) for game, view in jobs]


def test_the_process_paints_the_bytes_this_process_paints(process: PictureProcess) -> None:
    painter = Painter(apart=True, process=process)
    for jobs in flattop_hours():
        before = process.answered
        got = [thunk() for thunk in painter.paint_all(jobs)]
        assert process.answered == before + 1  # the second side's picture came from the process
        assert got == painted_here(jobs)
        assert all(p is not None and p.png.startswith(b"\x89PNG") for p in got)


def test_only_a_step_with_two_maps_or_more_is_shared(process: PictureProcess) -> None:
    painter = Painter(apart=True, process=process)
    jobs = flattop_hours(1)[0]
    lone = [jobs[0], ("duel", {"no map": True})]  # one map: painting it here is as quick
    assert [thunk() for thunk in painter.paint_all(lone)] == [paint(*jobs[0]), None]
    assert process.answered == 0
    here = Painter(apart=False, process=process)  # map_process off: every picture here
    assert [thunk() for thunk in here.paint_all(jobs)] == painted_here(jobs)
    assert process.answered == 0


def test_answers_nobody_takes_never_stop_the_next_steps(process: PictureProcess) -> None:
    """A step whose reports were given up leaves its answer unread (larger than a pipe holds, so
    the process waits to write it); a step of many seats then sends more than a pipe holds.
    Neither waits on the other: the process reads its jobs as they come."""
    painter = Painter(apart=True, process=process)
    hours = flattop_hours(6)
    given_up = painter.paint_all(hours[0])
    del given_up  # the tick failed: nobody takes its pictures
    many = [job for jobs in hours for job in jobs]  # twelve maps, eleven of them sent
    done: list[list[Painted | None]] = []

    def paint_many() -> None:
        done.append([thunk() for thunk in painter.paint_all(many)])

    worker = threading.Thread(target=paint_many, daemon=True)
    worker.start()
    worker.join(120)
    assert not worker.is_alive(), "the step's maps never came back"
    assert done == [painted_here(many)] and process.answered == len(many) - 1


def test_a_map_the_drawing_cannot_draw_is_the_same_error_from_the_process(process: PictureProcess) -> None:
    jobs = flattop_hours(1)[0]
    broken = dict(jobs[1][1])
    broken["map"] = {
        **broken["map"],
        "contacts": [{"hex": "nowhere", "kind": "tf", "label": "", "age": 0, "condition": 1}],
    }
    with pytest.raises(MapError) as here:
        paint("flattop", broken)
    thunks = Painter(apart=True, process=process).paint_all([jobs[0], ("flattop", broken)])
    with pytest.raises(MapError) as there:
        thunks[1]()
    assert str(there.value) == str(here.value) and "nowhere" in str(there.value)
    assert process.answered == 1 and process.pid is not None  # the process goes on


def test_a_killed_process_costs_no_picture_and_a_new_one_is_started_later(
    process: PictureProcess, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    painter = Painter(apart=True, process=process)
    hours = flattop_hours(3)
    first = process.pid
    assert first is not None
    os.kill(first, signal.SIGSTOP)  # so that it has answered nothing when it dies
    thunks = painter.paint_all(hours[1])
    os.kill(first, signal.SIGKILL)
    with caplog.at_level(logging.WARNING, logger="mailbot.render.maps.painting"):
        assert [thunk() for thunk in thunks] == painted_here(hours[1])  # painted here instead
    assert "the picture process died" in caplog.text and process.pid is None
    # Not started again at once (a process that cannot paint would cost every step its start) ...
    assert [thunk() for thunk in painter.paint_all(hours[2])] == painted_here(hours[2])
    assert process.pid is None
    # ... but once the wait is over.
    monkeypatch.setattr(painting, "RETRY_SECONDS", 0.0)
    painter.paint_all(hours[2])
    assert process.pid not in (None, first) and process.wait_ready(60)
    assert [thunk() for thunk in painter.paint_all(hours[2])] == painted_here(hours[2])
    assert not alive(first)


def test_a_process_that_gives_no_picture_in_time_is_not_waited_for(
    process: PictureProcess, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(painting, "WAIT_SECONDS", 0.5)
    pid = process.pid
    assert pid is not None
    jobs = flattop_hours(2)[1]
    os.kill(pid, signal.SIGSTOP)  # hung
    thunks = Painter(apart=True, process=process).paint_all(jobs)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="mailbot.render.maps.painting"):
        assert [thunk() for thunk in thunks] == painted_here(jobs)
    assert time.monotonic() - started < 10
    assert "gave no picture within" in caplog.text and process.pid is None
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)  # ended, not left stopped


def outside_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A game known only to this process (a registry of the test's own) that draws a map."""
    package = tmp_path / "elsewhere_maps"
    package.mkdir()
    (package / "__init__.py").write_text("from tests.contract.fixtures.auction import GAME\n")
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><title>{}</title></svg>'
    (package / "drawing.py").write_text(f"def draw(model):\n    return {svg!r}.format(model['name'])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry(["elsewhere_maps"])
    monkeypatch.setattr(render.maps, "default_registry", lambda: registry)
    return registry.packages()[0].name


def test_a_process_that_reads_no_job_in_time_is_not_waited_for(
    process: PictureProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Sending waits no longer than taking: a job larger than the socket holds, to a process that
    reads nothing (stopped), fails after WAIT_SECONDS and is painted here."""
    monkeypatch.setattr(painting, "WAIT_SECONDS", 0.5)
    process.stop()
    process.start()  # its socket's waits are set when it starts
    assert process.wait_ready(60)
    pid = process.pid
    assert pid is not None
    name = outside_game(tmp_path, monkeypatch)
    large = {"name": "Truk", "notes": "x" * 4_000_000}
    jobs: list[Job] = [(name, {"map": {"name": "Midway"}}), (name, {"map": large})]
    os.kill(pid, signal.SIGSTOP)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="mailbot.render.maps.painting"):
        got = [thunk() for thunk in Painter(apart=True, process=process).paint_all(jobs)]
    assert got == painted_here(jobs) and time.monotonic() - started < 10
    assert "cannot be reached" in caplog.text and process.pid is None


def test_a_game_the_process_cannot_find_is_painted_here(
    process: PictureProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture process has no drawer for it: its pictures are painted here, whole."""
    name = outside_game(tmp_path, monkeypatch)
    jobs: list[Job] = [(name, {"map": {"name": n}}) for n in ("Midway", "Coral Sea")]
    got = [thunk() for thunk in Painter(apart=True, process=process).paint_all(jobs)]
    assert got == painted_here(jobs) and process.answered == 1
    assert got[1] is not None and "<title>Coral Sea</title>" in got[1].picture.svg
    assert process.pid is not None  # the process is not blamed for a game it cannot know


def test_a_view_that_cannot_be_sent_is_painted_here(
    process: PictureProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    name = outside_game(tmp_path, monkeypatch)
    unsendable = {"name": "Rabaul", "note": lambda: "a value pickle cannot write"}
    jobs: list[Job] = [(name, {"map": {"name": "Midway"}}), (name, {"map": unsendable})]
    with caplog.at_level(logging.WARNING, logger="mailbot.render.maps.painting"):
        got = [thunk() for thunk in Painter(apart=True, process=process).paint_all(jobs)]
    assert got == painted_here(jobs) and process.answered == 0
    assert "cannot be sent to the picture process" in caplog.text and process.pid is not None


def test_the_picture_process_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    script = (
        "import sys, time\n"
        "from mailbot.render.maps.painting import PictureProcess\n"
        "p = PictureProcess()\n"
        "p.start(['flattop'])\n"
        "assert p.wait_ready(60)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=ROOT, text=True
    ) as parent:
        try:
            assert parent.stdout is not None
            child = int(parent.stdout.readline())
            assert alive(child)
            parent.kill()
            parent.wait()
            deadline = time.monotonic() + 20
            while alive(child) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not alive(child)
        finally:
            if parent.poll() is None:
                parent.kill()


@pytest.mark.parametrize(
    ("program", "said"),
    [
        ("import time; time.sleep(60)", "was not ready after"),  # stuck in its imports
        (  # a first message that is no answer
            "import os, sys, time; os.write(int(sys.argv[1]), b'\\0\\0\\0\\5junk!'); time.sleep(60)",
            "ended as it started",
        ),
    ],
)
def test_a_process_that_never_gets_ready_is_ended_and_every_picture_painted_here(
    program: str, said: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(painting, "READY_SECONDS", 0.5)
    process = PictureProcess(command=[sys.executable, "-c", program])
    painter = Painter(apart=True, process=process)
    jobs = flattop_hours(1)[0]
    try:
        assert [thunk() for thunk in painter.paint_all(jobs)] == painted_here(jobs)  # started
        pid = process.pid
        assert pid is not None
        time.sleep(0.6)
        with caplog.at_level(logging.WARNING, logger="mailbot.render.maps.painting"):
            assert [thunk() for thunk in painter.paint_all(jobs)] == painted_here(jobs)
        assert said in caplog.text and process.pid is None and process.answered == 0
        assert not alive(pid)
    finally:
        process.stop()
