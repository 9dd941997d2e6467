# SPDX-License-Identifier: GPL-3.0-or-later
"""A deadline as an iCalendar attachment, so players can drop it into their calendars.

One VEVENT per deadline, published (METHOD:PUBLISH, no replies expected),
with a display alarm an hour before. Times are written in UTC: every calendar
client shows them in the reader's own zone, and no VTIMEZONE block is needed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from icalendar import Alarm, Calendar, Event, vCalAddress, vText

PRODID = "-//mailbot//deadlines//EN"
ALARM_BEFORE = timedelta(hours=1)


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
    event = _event(uid=uid, summary=summary, description=description, sequence=sequence)
    # A deadline is a moment, not a meeting: zero length, and it does not block the reader's time.
    event.add("dtstart", _utc(deadline))
    event.add("dtend", _utc(deadline))
    event.add("transp", "TRANSPARENT")
    event.add("dtstamp", _utc(created))
    event.add("created", _utc(created))
    event.add("organizer", _organizer(organizer))
    event.add_component(_alarm(summary))
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", "PUBLISH")
    calendar.add_component(event)
    return bytes(calendar.to_ical())


def _event(*, uid: str, summary: str, description: str, sequence: int) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("sequence", sequence)
    event.add("summary", summary)
    event.add("description", description)
    return event


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
