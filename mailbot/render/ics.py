# SPDX-License-Identifier: GPL-3.0-or-later
"""A deadline as an iCalendar attachment, so players can drop it into their calendars.

One VEVENT per deadline, published (METHOD:PUBLISH, no replies expected),
with a display alarm an hour before. Times are written in UTC: every calendar
client shows them in the reader's own zone, and no VTIMEZONE block is needed.

icalendar builds the calendar once per process with a marker in every field that changes
(:func:`_frame`); each deadline then only fills the markers with values icalendar escapes
and folds. Building the whole calendar per deadline took about 2 ms, most of it icalendar
folding every line a character at a time: about a tenth of a duel game's tick. A test holds
the filled frame to icalendar's own build, byte for byte.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from icalendar import Alarm, Calendar, Event, vCalAddress, vDDDTypes, vText
from icalendar.parser import Contentline

PRODID = "-//mailbot//deadlines//EN"
ALARM_BEFORE = timedelta(hours=1)
#: RFC 5545 3.1: a content line of this many octets or more is folded (as icalendar folds it)
FOLD_AT = 75


@dataclass(frozen=True)
class Fields:
    """What changes from one deadline's calendar to the next."""

    uid: str
    summary: str
    description: str
    deadline: datetime
    created: datetime
    organizer: str
    sequence: int = 0


def deadline_ics(
    *,
    uid: str,
    summary: str,
    description: str,
    deadline: datetime,
    created: datetime,
    organizer: str,
    sequence: int = 0,
) -> bytes:
    """A VCALENDAR with one VEVENT at ``deadline`` (DTSTART = DTEND, UTC) and a VALARM.

    Keep ``uid`` stable for a step and raise ``sequence`` each time its deadline
    moves (EXTEND, RESUME, ROLLBACK): calendar clients then update the event
    instead of adding a second one. METHOD:PUBLISH allows that: a published
    event with a known UID and a higher SEQUENCE replaces the one held (RFC 5546,
    3.2.1); REQUEST would ask every reader to accept or decline a deadline.
    """
    fields = Fields(uid, summary, description, _utc(deadline), _utc(created), organizer, sequence)
    values = _values(fields)
    lines = (_fold(f"{head}{values[slot]}{tail}") if slot else head for head, slot, tail in _frame())
    return "".join(f"{line}\r\n" for line in lines).encode("utf-8")


def build(fields: Fields) -> bytes:
    """The calendar as icalendar builds it: the frame's source, and the tests' reference."""
    event = Event()
    event.add("uid", fields.uid)
    event.add("sequence", fields.sequence)
    event.add("summary", fields.summary)
    event.add("description", fields.description)
    # A deadline is a moment, not a meeting: zero length, and it does not block the reader's time.
    event.add("dtstart", _utc(fields.deadline))
    event.add("dtend", _utc(fields.deadline))
    event.add("transp", "TRANSPARENT")
    event.add("dtstamp", _utc(fields.created))
    event.add("created", _utc(fields.created))
    event.add("organizer", _organizer(fields.organizer))
    event.add_component(_alarm(fields.summary))
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", "PUBLISH")
    calendar.add_component(event)
    return bytes(calendar.to_ical())


#: the markers :func:`_frame` builds with: texts no escaping changes, times no deadline has
_MARKS = Fields(
    uid="QQuidQQ",
    summary="QQsummaryQQ",
    description="QQdescriptionQQ",
    deadline=datetime(1901, 1, 1, 0, 0, 1, tzinfo=UTC),
    created=datetime(1901, 1, 1, 0, 0, 2, tzinfo=UTC),
    organizer="QQorganizerQQ",
    sequence=987654321,
)


@functools.cache
def _frame() -> tuple[tuple[str, str, str], ...]:
    """icalendar's calendar for the markers, unfolded into lines: (prefix, slot, suffix) for a
    line holding a marker, (line, "", "") for a line that never changes."""
    marks = _values(_MARKS)
    text = build(_MARKS).decode("utf-8").replace("\r\n ", "")
    frame: list[tuple[str, str, str]] = []
    for line in text.split("\r\n")[:-1]:
        slot = next((name for name, mark in marks.items() if mark in line), "")
        prefix, _, suffix = line.partition(marks[slot]) if slot else (line, "", "")
        frame.append((prefix, slot, suffix))
    return tuple(frame)


def _values(fields: Fields) -> dict[str, str]:
    """Each field as icalendar writes its value (escaped text, UTC times)."""
    return {
        "uid": _text(fields.uid),
        "summary": _text(fields.summary),
        "description": _text(fields.description),
        "deadline": vDDDTypes(fields.deadline).to_ical().decode("utf-8"),
        "created": vDDDTypes(fields.created).to_ical().decode("utf-8"),
        "organizer": _organizer(fields.organizer).to_ical().decode("utf-8"),
        "sequence": str(fields.sequence),
    }


def _text(value: str) -> str:
    return vText(value).to_ical().decode("utf-8")


def _fold(line: str) -> str:
    if len(line.encode("utf-8")) < FOLD_AT:
        return line
    # icalendar's content line folds as its calendars fold (never inside an escape); its
    # constructor carries no type hints, hence the cast.
    folded: bytes = cast(Any, Contentline)(line).to_ical()
    return folded.decode("utf-8")


def _alarm(summary: str) -> Alarm:
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    # DISPLAY alarms must carry a DESCRIPTION (RFC 5545, 3.6.6).
    alarm.add("description", vText(f"In one hour: {summary}"))
    alarm.add("trigger", -ALARM_BEFORE)
    return alarm


def _organizer(address: str) -> vCalAddress:
    uri = address if address.lower().startswith("mailto:") else f"mailto:{address}"
    return vCalAddress(uri)


def _utc(instant: datetime) -> datetime:
    # A naive time would be written as floating local time, which each reader would place differently.
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"a timezone-aware datetime is needed, not {instant!r}")
    return instant.astimezone(UTC)
