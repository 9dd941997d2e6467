# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline rules: parsing, weekly rules across DST, durations, grace, reminders, local times.

DST dates used (2026): Europe/Berlin springs forward on Sun 29 Mar (02:00 CET ->
03:00 CEST, 01:00 UTC) and falls back on Sun 25 Oct (03:00 CEST -> 02:00 CET,
01:00 UTC); America/New_York springs forward on Sun 8 Mar (02:00 EST -> 03:00
EDT, 07:00 UTC) and falls back on Sun 1 Nov (02:00 EDT -> 01:00 EST, 06:00 UTC).
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mailbot.core.deadlines import (
    AbsoluteDeadline,
    DeadlineSpec,
    DurationDeadline,
    SpecProblem,
    WeeklyDeadline,
    canonical_zone,
    delay_text,
    describe,
    local_time,
    parse_deadline_spec,
    parse_delay,
    parse_duration,
    reminder_times,
    resolve_wall_time,
    step_deadline,
    valid_zone,
    wall_time_notes,
    with_grace,
)
from mailbot.errors import ConfigError

BERLIN = "Europe/Berlin"
NEW_YORK = "America/New_York"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def spec(text: str) -> DeadlineSpec:
    parsed = parse_deadline_spec(text)
    assert not isinstance(parsed, SpecProblem), parsed
    return parsed


def problem(text: str) -> SpecProblem:
    parsed = parse_deadline_spec(text)
    assert isinstance(parsed, SpecProblem), parsed
    assert parsed.text == text
    return parsed


# --- parsing: good input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-01 20:00", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0))),
        ("2026-12-01T20:00", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0))),
        ("  2026-12-01 20:00  ", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0))),
        ("2026-12-01 20:00 Europe/Berlin", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0), BERLIN)),
        ("2026-12-01T20:00Z", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0), "UTC")),
        ("2026-12-01T20:00:30", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0, 30))),
        ("2026-12-01 20:00 europe/berlin", AbsoluteDeadline(datetime(2026, 12, 1, 20, 0), BERLIN)),
    ],
)
def test_parse_absolute(text: str, expected: AbsoluteDeadline) -> None:
    assert parse_deadline_spec(text) == expected


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("48h", 48),
        ("2d", 48),
        ("90m", 1.5),
        ("1d12h", 36),
        ("1d 12h", 36),
        ("36 hours", 36),
        ("2 days", 48),
        ("1 day, 12 hours", 36),
        ("1 day and 12 hours", 36),
        ("1w", 168),
        ("2 HRS 30 mins", 2.5),
    ],
)
def test_parse_duration_spec(text: str, hours: float) -> None:
    assert parse_deadline_spec(text) == DurationDeadline(timedelta(hours=hours))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mon,Thu 20:00 Europe/Berlin", WeeklyDeadline((0, 3), time(20, 0), BERLIN)),
        ("mon thu 20:00", WeeklyDeadline((0, 3), time(20, 0))),
        ("Mon, Thu 20:00", WeeklyDeadline((0, 3), time(20, 0))),
        ("Thu,Mon,thu 20:00", WeeklyDeadline((0, 3), time(20, 0))),
        ("Sunday 18:30 America/New_York", WeeklyDeadline((6,), time(18, 30), NEW_YORK)),
        ("every Tuesday at 9:05 utc", WeeklyDeadline((1,), time(9, 5), "UTC")),
        ("tu th sa 07:00", WeeklyDeadline((1, 3, 5), time(7, 0))),
        ("Weds, Thurs, Sundays 00:00", WeeklyDeadline((2, 3, 6), time(0, 0))),
    ],
)
def test_parse_weekly(text: str, expected: WeeklyDeadline) -> None:
    assert parse_deadline_spec(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-01 20:00",
        "2026-12-01 20:00:30 Europe/Berlin",
        "1d12h30m",
        "1h30m",
        "Mon,Thu 20:00 Europe/Berlin",
        "Sun 18:30",
        "Mon,Tue,Wed,Thu,Fri,Sat,Sun 06:00 UTC",
    ],
)
def test_normalised_text_reads_back_unchanged(text: str) -> None:
    parsed = spec(text)
    assert parsed.normalised() == text
    assert parse_deadline_spec(parsed.normalised()) == parsed


# --- parsing: bad input is data, with a reason ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "no deadline given"),
        ("   ", "no deadline given"),
        ("x" * 101, "too long"),
        ("2026-02-29 20:00", "no such date: 2026-02-29"),
        ("2026-13-01 20:00", "no such date"),
        ("2026-12-01 24:00", "no such time of day"),
        ("2026-12-01 20:60", "no such time of day"),
        ("2026-12-01", "give a time of day too"),
        ("2026-12-01 at noon", "expected a date and time"),
        ("2026-12-01 20:00 Mars/Olympus", "unknown time zone 'Mars/Olympus'"),
        ("2026-12-01 20:00Z Europe/Berlin", "either Z or a time zone"),
        ("2026-12-01 20:00 Europe/Berlin sharp", "unexpected text after the time zone: 'sharp'"),
        ("48", "give a unit: 48h, 48d or 48m"),
        ("2 fortnights", "unknown unit 'fortnights'"),
        ("1 month", "months and years differ in length"),
        ("1y", "months and years differ in length"),
        ("1h 2h", "given twice"),
        ("0h", "more than zero"),
        ("0d 0h", "more than zero"),
        ("366d", "longer than 365 days"),
        ("1.5d", "not a duration"),
        ("48h!", "not a duration"),
        ("Funday 20:00", "not a weekday: 'Funday'"),
        ("T 20:00", "not a weekday: 'T'"),
        ("at", "not a weekday"),
        ("Mon,Thu", "needs a time of day"),
        ("Mon 8pm", "expected a time of day as HH:MM"),
        ("Mon 25:00", "expected a time of day as HH:MM"),
        ("Mon 20:00 Atlantis", "unknown time zone 'Atlantis'"),
        ("Mon 20:00 ../../etc/passwd", "unknown time zone"),
        ("Mon 20:00 America", "unknown time zone 'America'"),
        ("Mon 20:00 Europe/Berlin please", "unexpected text after the time zone"),
    ],
)
def test_bad_specs_are_problems_with_reasons(text: str, reason: str) -> None:
    assert reason in problem(text).reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48h", timedelta(hours=48)),
        ("2d", timedelta(days=2)),
        ("90m", timedelta(minutes=90)),
        ("1d12h", timedelta(hours=36)),
        ("36 hours", timedelta(hours=36)),
        (" 2 Days ", timedelta(days=2)),
        ("1 week", timedelta(weeks=1)),
        ("1 minute", timedelta(minutes=1)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text", ["", "48", "h", "-2d", "0m", "1.5h", "2 months", "1h1h", "366d", "Mon 20:00"]
)
def test_parse_duration_refuses(text: str) -> None:
    assert parse_duration(text) is None


# --- absolute and duration deadlines --------------------------------------------------------


def test_absolute_uses_its_own_zone_or_the_games() -> None:
    opened = utc(2026, 11, 1)
    assert spec("2026-12-01 20:00 Europe/Berlin").next_deadline(opened, NEW_YORK) == utc(2026, 12, 1, 19)
    assert spec("2026-12-01 20:00").next_deadline(opened, BERLIN) == utc(2026, 12, 1, 19)
    assert spec("2026-12-01 20:00").next_deadline(opened, NEW_YORK) == utc(2026, 12, 2, 1)
    assert spec("2026-12-01T20:00Z").next_deadline(opened, BERLIN) == utc(2026, 12, 1, 20)


def test_absolute_in_the_spring_gap_moves_to_the_jump() -> None:
    assert spec("2026-03-29 02:30 Europe/Berlin").next_deadline(utc(2026, 3, 1), "UTC") == utc(2026, 3, 29, 1)


def test_absolute_in_the_autumn_fold_takes_the_first_occurrence() -> None:
    # 02:30 happens at 00:30 UTC (CEST) and again at 01:30 UTC (CET).
    assert spec("2026-10-25 02:30 Europe/Berlin").next_deadline(utc(2026, 10, 1), "UTC") == utc(
        2026, 10, 25, 0, 30
    )


def test_a_time_the_clocks_skip_is_said_with_the_instant_it_stands_for() -> None:
    """The outside trial, item 3: ``--deadline "2027-03-28 02:30 Europe/Berlin"`` was taken in
    silence; the GM is now told that 02:30 does not exist that night and which instant is used."""
    (note,) = wall_time_notes(spec("2027-03-28 02:30 Europe/Berlin"), "UTC", utc(2026, 12, 1))
    assert note.skipped and note.deadline == utc(2027, 3, 28, 1)
    assert note.text() == (
        "02:30 does not exist on Sun 28 Mar 2027 in Europe/Berlin (the clocks jump from 02:00 to"
        " 03:00 that night): the deadline is Sun 28 Mar 2027 03:00 CEST, the moment of the jump"
    )
    assert note.brief() == "02:30 is skipped that night: the deadline is 03:00 CEST"


def test_a_time_the_clocks_show_twice_is_said_with_the_first() -> None:
    (note,) = wall_time_notes(spec("2026-10-25 02:30"), BERLIN, utc(2026, 10, 1))
    assert not note.skipped and note.deadline == utc(2026, 10, 25, 0, 30)
    assert note.text() == (
        "02:30 comes twice on Sun 25 Oct 2026 in Europe/Berlin (the clocks go back from 03:00 to"
        " 02:00 that night): the deadline is the first, Sun 25 Oct 2026 02:30 CEST"
    )


def test_a_weekly_rule_names_its_days_in_the_coming_year_the_clocks_skip_or_repeat() -> None:
    notes = wall_time_notes(spec("Sun 02:30 Europe/Berlin"), "UTC", utc(2026, 12, 1))
    assert [(n.wall.date().isoformat(), n.skipped) for n in notes] == [
        ("2027-03-28", True),
        ("2027-10-31", False),
    ]
    assert wall_time_notes(spec("Sat 02:30 Europe/Berlin"), "UTC", utc(2026, 12, 1)) == []
    assert wall_time_notes(spec("Mon,Thu 20:00"), BERLIN, utc(2026, 12, 1)) == []


def test_times_the_clocks_show_once_and_durations_need_no_note() -> None:
    assert wall_time_notes(spec("2027-03-28 03:30 Europe/Berlin"), "UTC", utc(2026, 12, 1)) == []
    assert wall_time_notes(spec("2027-03-28 02:30"), "UTC", utc(2026, 12, 1)) == []
    assert wall_time_notes(spec("48h"), BERLIN, utc(2026, 12, 1)) == []


def test_duration_is_exact_elapsed_time_across_spring_forward() -> None:
    # Opened Sat 28 Mar 12:00 CET in Berlin's own zone: 48 real hours later the wall clock says 13:00 CEST.
    opened = datetime(2026, 3, 28, 12, 0, tzinfo=ZoneInfo(BERLIN))
    deadline = spec("48h").next_deadline(opened, BERLIN)
    assert deadline == utc(2026, 3, 30, 11)
    assert deadline - opened == timedelta(hours=48)
    assert deadline.tzinfo is UTC
    assert local_time(deadline, BERLIN) == "Mon 30 Mar 2026 13:00 CEST"


def test_duration_is_exact_elapsed_time_across_fall_back() -> None:
    opened = datetime(2026, 10, 31, 12, 0, tzinfo=ZoneInfo(NEW_YORK))
    deadline = spec("2d").next_deadline(opened, NEW_YORK)
    assert deadline - opened == timedelta(hours=48)
    assert local_time(deadline, NEW_YORK) == "Mon 2 Nov 2026 11:00 EST"


def test_duration_ignores_not_before() -> None:
    opened = utc(2026, 5, 1)
    assert spec("1d").next_deadline(opened, BERLIN, not_before=utc(2026, 6, 1)) == utc(2026, 5, 2)


# --- weekly rules ---------------------------------------------------------------------------


def test_weekly_picks_the_next_listed_day() -> None:
    rule = spec("Mon,Thu 20:00 Europe/Berlin")
    # Tue 1 Dec 2026, 10:00 UTC -> Thu 3 Dec 20:00 CET.
    assert rule.next_deadline(utc(2026, 12, 1, 10), "UTC") == utc(2026, 12, 3, 19)
    # Thu 3 Dec after 20:00 CET -> Mon 7 Dec.
    assert rule.next_deadline(utc(2026, 12, 3, 19, 1), "UTC") == utc(2026, 12, 7, 19)


def test_weekly_is_strictly_after_the_start() -> None:
    rule = spec("Thu 20:00 Europe/Berlin")
    slot = utc(2026, 12, 3, 19)
    assert rule.next_deadline(slot, "UTC") == slot + timedelta(weeks=1)
    assert rule.next_deadline(slot - timedelta(microseconds=1), "UTC") == slot


def test_weekly_counts_from_not_before() -> None:
    rule = spec("Mon,Thu 20:00 Europe/Berlin")
    opened = utc(2026, 12, 3, 18)  # an hour before Thursday's slot
    assert rule.next_deadline(opened, "UTC", not_before=opened + timedelta(hours=24)) == utc(2026, 12, 7, 19)


def test_weekly_days_are_days_in_the_rules_zone() -> None:
    # Mon 7 Dec 23:30 UTC is already Tuesday in Berlin; Monday 20:00 Berlin has passed.
    assert spec("Mon 20:00 Europe/Berlin").next_deadline(utc(2026, 12, 7, 23, 30), "UTC") == utc(
        2026, 12, 14, 19
    )
    # ... and still Monday afternoon in New York.
    assert spec("Mon 20:00 America/New_York").next_deadline(utc(2026, 12, 7, 20), "UTC") == utc(
        2026, 12, 8, 1
    )


def test_zone_less_weekly_uses_the_game_zone() -> None:
    rule = spec("mon thu 20:00")
    opened = utc(2026, 12, 1, 10)
    assert rule.next_deadline(opened, BERLIN) == utc(2026, 12, 3, 19)
    assert rule.next_deadline(opened, NEW_YORK) == utc(2026, 12, 4, 1)
    # A zone in the rule wins over the game's.
    assert spec("mon thu 20:00 Europe/Berlin").next_deadline(opened, NEW_YORK) == utc(2026, 12, 3, 19)


def test_weekly_keeps_wall_time_across_berlin_spring_forward() -> None:
    rule = spec("Sun 20:00 Europe/Berlin")
    before = rule.next_deadline(utc(2026, 3, 16), "UTC")
    after = rule.next_deadline(before, "UTC")
    assert (before, after) == (utc(2026, 3, 22, 19), utc(2026, 3, 29, 18))
    assert after - before == timedelta(days=7) - timedelta(hours=1)
    assert local_time(before, BERLIN) == "Sun 22 Mar 2026 20:00 CET"
    assert local_time(after, BERLIN) == "Sun 29 Mar 2026 20:00 CEST"


def test_weekly_keeps_wall_time_across_berlin_fall_back() -> None:
    rule = spec("Sun 20:00 Europe/Berlin")
    assert rule.next_deadline(utc(2026, 10, 19), "UTC") == utc(2026, 10, 25, 19)
    assert rule.next_deadline(utc(2026, 10, 12), "UTC") == utc(2026, 10, 18, 18)


def test_weekly_in_the_berlin_spring_gap_moves_to_the_jump() -> None:
    # 02:30 does not exist on 29 Mar 2026: the deadline is the jump itself, 03:00 CEST.
    deadline = spec("Sun 02:30 Europe/Berlin").next_deadline(utc(2026, 3, 28, 12), "UTC")
    assert deadline == utc(2026, 3, 29, 1)
    assert local_time(deadline, BERLIN) == "Sun 29 Mar 2026 03:00 CEST"
    # A week later 02:30 exists again.
    assert spec("Sun 02:30 Europe/Berlin").next_deadline(deadline, "UTC") == utc(2026, 4, 5, 0, 30)


def test_weekly_in_the_berlin_fold_takes_the_first_occurrence() -> None:
    rule = spec("Sun 02:30")  # the game zone applies
    deadline = rule.next_deadline(utc(2026, 10, 24, 12), BERLIN)
    assert deadline == utc(2026, 10, 25, 0, 30)
    assert local_time(deadline, BERLIN) == "Sun 25 Oct 2026 02:30 CEST"


def test_weekly_slot_between_the_two_fold_occurrences_counts_as_past() -> None:
    # Opened at 02:45 CEST, between 02:30 CEST and the repeated 02:30 CET: next week's slot.
    opened = utc(2026, 10, 25, 0, 45)
    assert spec("Sun 02:30").next_deadline(opened, BERLIN) == utc(2026, 11, 1, 1, 30)


def test_weekly_in_the_new_york_spring_gap_and_fold() -> None:
    rule = spec("Sun 02:30 America/New_York")
    assert rule.next_deadline(utc(2026, 3, 7), "UTC") == utc(2026, 3, 8, 7)  # 03:00 EDT
    fold = spec("Sun 01:30 America/New_York")
    assert fold.next_deadline(utc(2026, 10, 31), "UTC") == utc(2026, 11, 1, 5, 30)  # 01:30 EDT


def test_weekly_evening_in_new_york_shifts_by_an_hour_in_utc() -> None:
    rule = spec("Sunday 18:30 America/New_York")
    assert rule.next_deadline(utc(2026, 10, 20), "UTC") == utc(2026, 10, 25, 22, 30)  # EDT
    assert rule.next_deadline(utc(2026, 10, 27), "UTC") == utc(2026, 11, 1, 23, 30)  # EST
    assert rule.next_deadline(utc(2026, 3, 2), "UTC") == utc(2026, 3, 8, 22, 30)  # EDT again


def test_gap_end_for_a_half_hour_shift() -> None:
    # Lord Howe Island moves its clocks by 30 minutes: 02:00 -> 02:30 on Sun 4 Oct 2026.
    zone = ZoneInfo("Australia/Lord_Howe")
    assert resolve_wall_time(datetime(2026, 10, 4, 2, 15), zone) == utc(2026, 10, 3, 15, 30)


ZONES = st.sampled_from([BERLIN, NEW_YORK, "Australia/Lord_Howe", "Asia/Kolkata", "UTC"])
STARTS = st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 31)).map(
    lambda d: d.replace(tzinfo=UTC)
)


@settings(max_examples=300, deadline=None)
@given(
    start=STARTS,
    zone=ZONES,
    days=st.sets(st.integers(0, 6), min_size=1).map(lambda s: tuple(sorted(s))),
    at=st.times().map(lambda t: t.replace(second=0, microsecond=0)),
)
def test_weekly_properties(start: datetime, zone: str, days: tuple[int, ...], at: time) -> None:
    tz = ZoneInfo(zone)
    deadline = WeeklyDeadline(days, at, zone).next_deadline(start, "UTC")
    local = deadline.astimezone(tz)
    assert deadline.tzinfo is UTC
    assert start < deadline <= start + timedelta(days=7, hours=1)
    assert local.weekday() in days
    assert resolve_wall_time(datetime.combine(local.date(), at), tz) == deadline
    # Either the wall time itself, or (it did not exist that day) the instant the clocks jumped.
    just_before = (deadline - timedelta(microseconds=1)).astimezone(tz)
    assert local.time() == at or (local.time() > at and just_before.utcoffset() != local.utcoffset())


# --- steps, grace, reminders ------------------------------------------------------------------


def test_step_duration_overrides_the_game_rule() -> None:
    rule = spec("Mon,Thu 20:00 Europe/Berlin")
    opened = utc(2026, 12, 1, 10)
    assert step_deadline(rule, opened, BERLIN, timedelta(hours=6)) == utc(2026, 12, 1, 16)
    assert step_deadline(rule, opened, BERLIN, None) == utc(2026, 12, 3, 19)
    assert step_deadline(rule, opened, BERLIN, None, not_before=utc(2026, 12, 4)) == utc(2026, 12, 7, 19)


def test_grace_is_added_to_the_deadline() -> None:
    assert with_grace(utc(2026, 12, 3, 19), timedelta(minutes=15)) == utc(2026, 12, 3, 19, 15)
    assert with_grace(utc(2026, 12, 3, 19), timedelta(0)) == utc(2026, 12, 3, 19)
    with pytest.raises(ValueError, match="negative"):
        with_grace(utc(2026, 12, 3, 19), timedelta(minutes=-1))


def test_reminder_times_are_sorted_unique_and_inside_the_step() -> None:
    deadline, opened = utc(2026, 12, 3, 19), utc(2026, 12, 1, 19)
    offsets = [timedelta(hours=1), timedelta(hours=24), timedelta(hours=1), timedelta(minutes=60)]
    # Not after the deadline, not at or before the opening.
    offsets += [timedelta(0), timedelta(hours=-1), timedelta(hours=48), timedelta(hours=72)]
    assert reminder_times(deadline, offsets, opened) == [utc(2026, 12, 2, 19), utc(2026, 12, 3, 18)]
    assert reminder_times(deadline, [], opened) == []


def test_reminder_times_are_utc_whatever_the_inputs_zone() -> None:
    berlin = ZoneInfo(BERLIN)
    deadline = datetime(2026, 12, 3, 20, tzinfo=berlin)
    times = reminder_times(deadline, [timedelta(hours=2)], datetime(2026, 12, 1, tzinfo=berlin))
    assert times == [utc(2026, 12, 3, 17)]
    assert times[0].tzinfo is UTC


# --- zones and words --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        (BERLIN, "Tue 1 Dec 2026 20:00 CET"),
        (NEW_YORK, "Tue 1 Dec 2026 14:00 EST"),
        ("Asia/Tokyo", "Wed 2 Dec 2026 04:00 JST"),
        ("UTC", "Tue 1 Dec 2026 19:00 UTC"),
        ("europe/berlin", "Tue 1 Dec 2026 20:00 CET"),
    ],
)
def test_local_time_in_a_players_zone(zone: str, expected: str) -> None:
    assert local_time(utc(2026, 12, 1, 19), zone) == expected


def test_local_time_in_summer() -> None:
    assert local_time(utc(2026, 7, 4, 18, 5), BERLIN) == "Sat 4 Jul 2026 20:05 CEST"
    assert local_time(utc(2026, 7, 4, 18, 5), NEW_YORK) == "Sat 4 Jul 2026 14:05 EDT"


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        (BERLIN, BERLIN),
        ("europe/berlin", BERLIN),
        ("AMERICA/NEW_YORK", NEW_YORK),
        ("utc", "UTC"),
        ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("Mars/Olympus", None),
        ("America", None),
        ("", None),
        ("/etc/localtime", None),
        ("../etc/passwd", None),
        ("Europe/Berlin\x00", None),
        ("Europe/" + "x" * 300, None),
    ],
)
def test_canonical_and_valid_zone(name: str, canonical: str | None) -> None:
    assert canonical_zone(name) == canonical
    assert valid_zone(name) is (canonical is not None)


def test_unknown_game_zone_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="Mars/Olympus"):
        spec("mon 20:00").next_deadline(utc(2026, 12, 1), "Mars/Olympus")
    with pytest.raises(ConfigError):
        local_time(utc(2026, 12, 1), "Nowhere")


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        spec("48h").next_deadline(datetime(2026, 12, 1), BERLIN)
    with pytest.raises(ValueError, match="timezone-aware"):
        local_time(datetime(2026, 12, 1), BERLIN)


def test_specs_check_their_own_fields() -> None:
    with pytest.raises(ValueError, match="positive"):
        DurationDeadline(timedelta(0))
    with pytest.raises(ValueError, match="weekdays"):
        WeeklyDeadline((), time(20, 0))
    with pytest.raises(ValueError, match="weekdays"):
        WeeklyDeadline((7,), time(20, 0))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2026-12-01 20:00 Europe/Berlin", "Tue 1 Dec 2026 20:00 (Europe/Berlin)"),
        ("2026-12-01 20:00", "Tue 1 Dec 2026 20:00 (game time zone)"),
        ("48h", "2 days after the step opens"),
        ("1d12h", "1 day 12 hours after the step opens"),
        ("90m", "1 hour 30 minutes after the step opens"),
        ("1 minute", "1 minute after the step opens"),
        ("Mon,Thu 20:00 Europe/Berlin", "every Monday and Thursday at 20:00 (Europe/Berlin)"),
        ("Mon Wed Fri 06:30", "every Monday, Wednesday and Friday at 06:30 (game time zone)"),
        ("Sunday 18:30 America/New_York", "every Sunday at 18:30 (America/New_York)"),
        ("mo tu we th fr sa su 12:00", "every day at 12:00 (game time zone)"),
    ],
)
def test_describe(text: str, words: str) -> None:
    assert describe(spec(text)) == words


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("10s", 10),
        ("5 seconds", 5),
        ("5m", 300),
        ("1m30s", 90),
        ("0", 0),
        ("0s", 0),
        ("none", 0),
        ("2h", 7200),
    ],
)
def test_parse_delay_takes_seconds_and_zero(text: str, seconds: int) -> None:
    assert parse_delay(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("text", "reason"), [("10x", "use w, d, h, m or s"), ("5", "give a unit"), ("-5s", "not a")]
)
def test_parse_delay_refuses_with_a_reason(text: str, reason: str) -> None:
    problem = parse_delay(text)
    assert isinstance(problem, SpecProblem) and reason in problem.reason


def test_deadlines_still_take_no_seconds() -> None:
    assert parse_duration("10s") is None and parse_duration("0m") is None


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (10, "10 seconds"),
        (1, "1 second"),
        (0, "0 seconds"),
        (300, "5 minutes"),
        (330, "5 minutes 30 seconds"),
    ],
)
def test_delay_text(seconds: int, words: str) -> None:
    assert delay_text(timedelta(seconds=seconds)) == words
