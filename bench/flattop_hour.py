#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Flat Top game hour through the store next to the same hours in process (printed, not asserted).

1. Creates a Coral Sea game in a fresh SQLite store, both sides seated, quiet hours off (so
   one deadline is one game hour). Nobody sends orders (the interlock is told not to mind):
   each hour is played on HOLD, as a silent side's would be.
2. Through the store: moves the injected clock past each deadline and ticks the game. One
   tick loads the step's saved state, resolves it, saves the new state, opens the next step
   and renders and queues both sides' reports (no SMTP).
3. In process, the same number of hours from the same starting state: the plugin's
   ``resolve`` alone, and ``resolve`` with the saved-state round trip (dump, JSON, load)
   that the store adds.

The reports' map pictures (``reports.map_of``: SVG drawn, then PNG, or the picture taken from
the picture process) are timed apart and the hour is also printed without them, next to the raw
reference for them: cairosvg converting the same SVGs to PNG (what every picture cost before
``render.maps.raster``).

The moderator paints a step's maps side by side (``bot.map_process``, ``render.maps.painting``):
one side's here, the other's in the picture process, started with the game's opening letters.
A service's is ready long before the first deadline; here the hours are timed once it is
(``--warm-seconds``). The same hours are then played again in a second store with
``map_process`` off, every picture painted here one after the other, as before: that hour is
printed too, measured in the same run.

Target (issue 12): an hour through the store under 50 ms.
Every run plays the same game (``--seed``: its step seeds are drawn from it).
Run: ``.venv/bin/python bench/flattop_hour.py [--hours N] [--seed S]``; last line
``flattop hour: store <ms> ms (<ms> ms without map pictures), in process <ms> ms (<ms> ms with
the state round trip), map PNG <kB> kB, pictures one after the other <ms> ms`` (the median size of
a letter's map picture; target about 60 kB, issue 32).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import Session

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mailbot.app import Bot, freeze_long_lived
from mailbot.core.dice import DiceStream
from mailbot.core.game import Line
from mailbot.demo.replay import step_seeds
from mailbot.registry import find_game
from mailbot.render.maps import PNG_WIDTH, painting
from mailbot.services.base import queries
from mailbot.services.play import reports
from mailbot.services.play.games import GameSetup
from mailbot.settings import BotSettings, Settings, StoreSettings
from mailbot.store.game_tables import Game, row_id
from mailbot.testing.fakes import Clock, FakeSink

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fanout import GM  # a sibling bench script

BOT = "bot@bench.test"
#: the step seeds' source: the same game every run
SEED = "flattop-hour-bench"


def make_bot(db: Path, clock: Clock, seed: str, *, apart: bool = True) -> Bot:
    settings = Settings(
        store=StoreSettings(url=f"sqlite:///{db}"),
        bot=BotSettings(
            address=BOT, name="mailbot bench", gm_address=GM, max_missed_share=1.0, map_process=apart
        ),
    )
    # The step seeds drawn from ``seed`` (as the demo replays a game): each run plays the same
    # game, whose weather and fights decide what a map costs (storms over the grid's ids, the
    # hours with combat), so two runs, or two trees, are timed on the same hours.
    bot = Bot(settings, clock=clock, sink=FakeSink(), draw_seed=step_seeds(seed))
    bot.upgrade()
    return bot


def create_game(bot: Bot) -> int:
    setup = GameSetup(
        plugin="flattop",
        scenario="coral-sea",
        title="Bench Coral Sea",
        deadline="24h",
        timezone="UTC",
        gm_address=GM,
        options={"quiet_hours": False},
    )
    with Session(bot.engine) as session, session.begin():
        game = bot.games.create(session, setup)
        for seat in queries.seats(session, row_id(game)):
            bot.games.take_seat(session, game, seat, f"{seat.name}@players.bench.test")
        return row_id(game)


def first_snapshot(bot: Bot, game_id: int) -> dict[str, Any]:
    with Session(bot.engine) as session:
        step = queries.open_step(session, game_id)
        assert step is not None
        return dict(step.snapshot)


class MapTimer:
    """Time spent drawing the map pictures of the reports (``reports.map_of``), to print apart."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.svgs: list[str] = []
        self.sizes: list[int] = []  # each PNG's bytes, as attached to its letter
        self._real = reports.map_of

    def __enter__(self) -> MapTimer:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                drawn = self._real(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
            if drawn is not None:
                self.svgs.append(drawn[1])
                self.sizes.append(len(drawn[0].content))
            return drawn

        reports.map_of = timed  # type: ignore[assignment]
        return self

    def __exit__(self, *_exc: object) -> None:
        reports.map_of = self._real  # type: ignore[assignment]


def through_store(
    bot: Bot, clock: Clock, game_id: int, hours: int, maps: MapTimer
) -> list[tuple[float, float]]:
    """(seconds for the hour, of which drawing map pictures) for each hour."""
    times = []
    for _ in range(hours):
        with Session(bot.engine) as session:
            step = queries.open_step(session, game_id)
            game = session.get_one(Game, game_id)
            if step is None or game.status.value != "running":
                break
            clock.now = max(clock.now, step.deadline_at)
        clock.advance(1)
        drawn = maps.seconds
        started = time.perf_counter()
        done = bot.tick_once()
        times.append((time.perf_counter() - started, maps.seconds - drawn))
        if not any("processed" in line for line in done):
            raise SystemExit(f"the tick did not process the hour: {done}")
    return times


def in_process(snapshot: dict[str, Any], hours: int, round_trip: bool) -> list[float]:
    plugin = find_game("flattop")
    state = plugin.load(json.loads(json.dumps(snapshot)))
    times = []
    for hour in range(hours):
        started = time.perf_counter()
        if round_trip:
            state = plugin.load(json.loads(json.dumps(plugin.dump(state))))
        step = plugin.step(state)
        if step is None:
            break
        orders = {
            seat: plugin.parse(
                state, seat, [Line(1, text) for text in plugin.default_orders(state, seat)]
            ).orders
            for seat in step.owing
        }
        dice = DiceStream(bytes(32), "bench", f"{step.key}.{hour}", "")
        state = plugin.resolve(state, orders, dice=dice).state
        times.append(time.perf_counter() - started)
    return times


def cairosvg_ms(svgs: list[str], sample: int = 12) -> float:
    """The raw reference: median ms for cairosvg to make the PNG of one of these SVGs."""
    import cairosvg

    times = []
    for svg in svgs[-sample:]:
        started = time.perf_counter()
        cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=PNG_WIDTH)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def process_cpu(pid: int | None) -> float:
    """The CPU seconds process ``pid`` has used (Linux: /proc); 0 without one."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Hours:
    timed: list[tuple[float, float]]  # (seconds, of which pictures) each hour
    cpu: float  # CPU seconds of the hours after the first: this process's and the picture process's


def store_hours(
    tmp: Path, seed: str, hours: int, *, apart: bool, warm: float = 0.0
) -> tuple[Hours, MapTimer, dict[str, Any]]:
    """The hours through a fresh store, the pictures, the game's first saved state."""
    clock = Clock()
    bot = make_bot(tmp / f"flattop-{'apart' if apart else 'here'}.db", clock, seed, apart=apart)
    game_id = create_game(bot)
    snapshot = first_snapshot(bot, game_id)
    freeze_long_lived()  # as ``mailbot run`` does once it has started
    if apart and not painting.shared().wait_ready(warm):
        print(f"the picture process was not ready after {warm:.0f} s: pictures painted here until it is")
    pictures = painting.shared().pid if apart else None
    with MapTimer() as maps:
        # The CPU is counted from the second hour: in the first, the picture process paints the
        # printed board it keeps for the game (this process painted its own before the hours).
        hours_timed = through_store(bot, clock, game_id, 1, maps)
        cpu = time.process_time() + process_cpu(pictures)
        hours_timed += through_store(bot, clock, game_id, hours - 1, maps)
        cpu = time.process_time() + process_cpu(pictures) - cpu
    bot.engine.dispose()
    return Hours(hours_timed, cpu), maps, snapshot


def reference_hours(tmp: str, seed: str, hours: int) -> Hours:
    """The same hours with every picture painted here, one after the other (``map_process`` off)."""
    logging.basicConfig(level=logging.WARNING)
    return store_hours(Path(tmp), seed, hours, apart=False)[0]


def main(hours: int, seed: str = SEED, warm: float = 30.0) -> None:
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        # The reference in a process of its own: the pictures' caches of one run (labels, layers,
        # the printed board) would make the other's pictures cheaper.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=spawn) as elsewhere:
            one_by_one = elsewhere.submit(reference_hours, tmp, seed, hours).result()
        apart, maps, snapshot = store_hours(Path(tmp), seed, hours, apart=True, warm=warm)
        hours_timed = apart.timed
        store = [total for total, _ in hours_timed]
        no_maps = [total - drawing for total, drawing in hours_timed]
        per_hour = len(maps.svgs) / max(len(store) + 1, 1)  # the opening letters have maps too
        reference = cairosvg_ms(maps.svgs) * per_hour
        png_kb = statistics.median(maps.sizes) / 1000 if maps.sizes else 0.0
        bare = in_process(snapshot, len(store), round_trip=False)
        trip = in_process(snapshot, len(store), round_trip=True)
    ms = {name: statistics.median(values) * 1000 for name, values in (("store", store), ("bare", bare))}
    ms["here"] = statistics.median(total for total, _ in one_by_one.timed) * 1000
    ms["here_maps"] = statistics.median(drawing for _, drawing in one_by_one.timed) * 1000
    ms["cpu"] = apart.cpu / max(len(apart.timed) - 1, 1) * 1000
    ms["here_cpu"] = one_by_one.cpu / max(len(one_by_one.timed) - 1, 1) * 1000
    ms["trip"] = statistics.median(trip) * 1000
    ms["no_maps"] = statistics.median(no_maps) * 1000
    print(f"{len(store)} game hours of Flat Top (Coral Sea), medians per hour:")
    print(f"  through the store (tick: load, resolve, save, next step, reports): {ms['store']:.1f} ms")
    print(f"    the same without drawing the reports' map pictures:             {ms['no_maps']:.1f} ms")
    pictures = ms["store"] - ms["no_maps"]
    print(f"    of which the map pictures (SVG and PNG):                        {pictures:.1f} ms")
    print(f"    raw reference, cairosvg making the PNGs of the same SVGs:       {reference:.1f} ms")
    print(f"  the same hours, every picture painted here (map_process false):   {ms['here']:.1f} ms")
    print(f"    of which the map pictures, one after the other:                 {ms['here_maps']:.1f} ms")
    print(
        f"  CPU an hour (mean from the second), this process and the picture process: {ms['cpu']:.1f} ms;"
        f" one after the other: {ms['here_cpu']:.1f} ms"
    )
    label = f"a map picture as attached (PNG), median of {len(maps.sizes)}:"
    print(f"  {label:<66}{png_kb:.1f} kB")
    print(f"  in process, resolve only:                                         {ms['bare']:.1f} ms")
    print(f"  in process, resolve + state dump/JSON/load:                       {ms['trip']:.1f} ms")
    print(
        f"flattop hour: store {ms['store']:.1f} ms ({ms['no_maps']:.1f} ms without map pictures), "
        f"in process {ms['bare']:.1f} ms ({ms['trip']:.1f} ms with the state round trip), "
        f"map PNG {png_kb:.1f} kB, pictures one after the other {ms['here']:.1f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hours", type=int, default=24)
    parser.add_argument("--seed", default=SEED, help="step seeds drawn from it (default: %(default)s)")
    parser.add_argument(
        "--warm-seconds",
        type=float,
        default=30.0,
        help="the longest to wait for the picture process before the hours (default: %(default)s)",
    )
    arguments = parser.parse_args()
    main(arguments.hours, arguments.seed, arguments.warm_seconds)
