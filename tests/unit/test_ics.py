# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline calendar attachments, read back with icalendar's own parser."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar, Component

from mailbot.render.ics import Fields, build, deadline_ics

DEADLINE = datetime(2026, 12, 1, 20, 0, tzinfo=ZoneInfo("Europe/Berlin"))
CREATED = datetime(2026, 11, 28, 9, 15, tzinfo=UTC)


def produce(**changes: object) -> bytes:
    fields: dict[str, object] = {
        "uid": "game-7.T3.orders@mailbot.example.org",
        "summary": "Flat Top, turn 3: orders due",
        "description": "Send ORDERS to the moderator; late mail is refused, sorry.\nGood luck!",
        "deadline": DEADLINE,
        "created": CREATED,
        "organizer": "moderator@mailbot.example.org",
    }
    fields.update(changes)
    return deadline_ics(**fields)  # type: ignore[arg-type]


def only(calendar: Component, name: str) -> Component:
    found = calendar.walk(name)
    assert len(found) == 1, found
    return found[0]


def test_calendar_header() -> None:
    calendar = Calendar.from_ical(produce())
    assert calendar.name == "VCALENDAR"
    assert str(calendar["VERSION"]) == "2.0"
    assert str(calendar["METHOD"]) == "PUBLISH"
    assert str(calendar["PRODID"]) == "-//mailbot//deadlines//EN"


def test_event_fields() -> None:
    event = only(Calendar.from_ical(produce()), "VEVENT")
    assert str(event["UID"]) == "game-7.T3.orders@mailbot.example.org"
    assert str(event["SUMMARY"]) == "Flat Top, turn 3: orders due"
    assert (
        str(event["DESCRIPTION"]) == "Send ORDERS to the moderator; late mail is refused, sorry.\nGood luck!"
    )
    assert str(event["ORGANIZER"]) == "mailto:moderator@mailbot.example.org"
    assert event.decoded("DTSTAMP") == CREATED
    assert event.decoded("CREATED") == CREATED
    assert event.decoded("SEQUENCE") == 0
    assert str(event["TRANSP"]) == "TRANSPARENT"


def test_start_and_end_are_the_deadline_in_utc() -> None:
    raw = produce()
    event = only(Calendar.from_ical(raw), "VEVENT")
    start, end = event.decoded("DTSTART"), event.decoded("DTEND")
    assert start == end == datetime(2026, 12, 1, 19, 0, tzinfo=UTC)
    assert start.utcoffset() == timedelta(0)
    # Written as UTC ("Z"), so no VTIMEZONE is needed and every client places it alike.
    assert b"DTSTART:20261201T190000Z\r\n" in raw
    assert b"DTEND:20261201T190000Z\r\n" in raw
    assert b"VTIMEZONE" not in raw


def test_alarm_one_hour_before() -> None:
    alarm = only(Calendar.from_ical(produce()), "VALARM")
    assert str(alarm["ACTION"]) == "DISPLAY"
    assert alarm.decoded("TRIGGER") == timedelta(hours=-1)
    assert "Flat Top, turn 3: orders due" in str(alarm["DESCRIPTION"])


def test_lines_end_in_crlf_and_the_calendar_is_whole() -> None:
    raw = produce()
    assert raw.startswith(b"BEGIN:VCALENDAR\r\n")
    assert raw.endswith(b"END:VCALENDAR\r\n")
    assert b"\n" not in raw.replace(b"\r\n", b"")


def test_organizer_keeps_an_existing_mailto() -> None:
    event = only(Calendar.from_ical(produce(organizer="MAILTO:gm@example.org")), "VEVENT")
    assert str(event["ORGANIZER"]) == "MAILTO:gm@example.org"


def test_sequence_for_a_moved_deadline() -> None:
    event = only(Calendar.from_ical(produce(sequence=2)), "VEVENT")
    assert event.decoded("SEQUENCE") == 2


def test_non_ascii_text_survives() -> None:
    event = only(Calendar.from_ical(produce(summary="Zuikaku läuft aus")), "VEVENT")
    assert str(event["SUMMARY"]) == "Zuikaku läuft aus"


@pytest.mark.parametrize("field", ["deadline", "created"])
def test_naive_times_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        produce(**{field: datetime(2026, 12, 1, 20, 0)})


# The frame filled per deadline is icalendar's own calendar, byte for byte, whatever the text:
# commas, semicolons, backslashes and newlines escaped, long and non-ASCII lines folded where
# icalendar folds them (never inside a UTF-8 sequence), any time zone written as UTC.
texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=200) | st.sampled_from(
    ["", ",;\\\n", "é" * 80, "x" * 74, "x" * 75, "QQsummaryQQ", "QQuidQQ", "20261201T000000Z"]
)
zones = st.sampled_from([UTC, ZoneInfo("Asia/Tokyo")])
instants = st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=zones)
fields = st.builds(Fields, texts, texts, texts, instants, instants, st.emails(), st.integers(0, 10**6))


@settings(max_examples=200, deadline=None)
@given(fields)
def test_the_filled_frame_is_icalendars_own_build(made: Fields) -> None:
    assert produce(**vars(made)) == build(made)
