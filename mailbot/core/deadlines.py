# SPDX-License-Identifier: GPL-3.0-or-later
"""Deadline rules: reading them from a game master's text, and finding the next deadline.

Three kinds of rule, read by :func:`parse_deadline_spec` (problems are data,
never exceptions, because the text may arrive by mail):

* an absolute time, ``2026-12-01 20:00`` or ``2026-12-01T20:00Z`` or
  ``2026-12-01 20:00 Europe/Berlin``;
* a duration after the step opens, ``48h``, ``2d``, ``90m``, ``1d12h``, ``36 hours``;
* a weekly rule, ``Mon,Thu 20:00 Europe/Berlin``, ``mon thu 20:00``, ``Sunday 18:30``.

Without a zone the game's zone applies; it is an argument of
``next_deadline`` so a game can change zone without rewriting its rule.

Time zones and daylight saving time (DST):

* Durations are exact elapsed time: ``48h`` over a DST change is still 48 real
  hours, so the wall clock then shows 47 or 49 hours later. Players are
  promised time to think, not a wall-clock reading.
* Absolute and weekly times are wall-clock times in their zone: ``Sun 20:00
  Europe/Berlin`` stays 20:00 for a Berliner all year, so its UTC instant moves
  by an hour across DST.
* A wall time that does not exist (spring gap, 02:30 on a day the clocks jump
  from 02:00 to 03:00) moves forward to the first valid instant, the jump
  itself (03:00 new time): never earlier than asked, and as close to it as
  the clocks allow.
* A wall time that exists twice (autumn fold, 02:30 on a day the clocks go
  back from 03:00 to 02:00) takes the first occurrence (``fold=0``): the
  deadline is never later than a player reading the earlier clock would
  expect. A weekly slot happens once: if a step opens between the two
  occurrences, that slot counts as past.

Every instant returned is an aware UTC datetime. Naive datetimes passed in are
programming errors (``ValueError``); an unknown zone that did not come through
the parser (game settings, a player's profile) is a ``ConfigError``.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mailbot.errors import ConfigError

DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: Longer rules are almost surely typos (``480d`` for ``48h``), and no game waits that long.
MAX_DURATION = timedelta(days=365)

_EXAMPLES = "e.g. 2026-12-01 20:00, 48h or Mon,Thu 20:00"
# A plausible IANA key; keeps paths, blanks and control characters away from zoneinfo's file lookup.
_ZONE_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]{0,30}(?:/[A-Za-z0-9_+\-]{1,30}){0,2}")
_ABSOLUTE = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2}))?([Zz])?(?:\s+(.+))?"
)
_DATE_ONLY = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")
_DURATION = re.compile(r"(?:\d{1,6}\s*[a-z]+\s*)+")
_DURATION_PART = re.compile(r"(\d{1,6})\s*([a-z]+)")
_UNITS: dict[str, timedelta] = {
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), timedelta(weeks=1)),
    **dict.fromkeys(("d", "day", "days"), timedelta(days=1)),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), timedelta(hours=1)),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), timedelta(minutes=1)),
}
# A wait the game master sets (early processing, grace) may be short: seconds are allowed there.
_DELAY_UNITS = {**_UNITS, **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), timedelta(seconds=1))}
_NO_DELAY = frozenset({"0", "none", "no", "off"})
_MAX_TEXT = 100  # the longest real rule is well under this; mail may bring anything
_FILLERS = frozenset({"at", "and", "&", "every"})


@dataclass(frozen=True)
class SpecProblem:
    """Deadline text that could not be read, with a reason fit to quote back to the game master."""

    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class AbsoluteDeadline:
    """One fixed wall-clock time; ``zone`` None means the game's zone."""

    at: datetime  # naive: a wall-clock reading in the zone
    zone: str | None = None

    def next_deadline(
        self, opened_at: datetime, game_zone: str, *, not_before: datetime | None = None
    ) -> datetime:
        # A fixed instant does not move with the step; whether it is already past is the caller's call.
        return resolve_wall_time(self.at, _zone(self.zone or game_zone))

    def describe(self) -> str:
        return f"{_day_text(self.at.date())} {_clock_text(self.at.time())} ({_zone_text(self.zone)})"

    def normalised(self) -> str:
        return _joined(f"{self.at.date().isoformat()} {_clock_text(self.at.time())}", self.zone)


@dataclass(frozen=True, slots=True)
class DurationDeadline:
    """A fixed span of elapsed time after the step opens."""

    duration: timedelta

    def __post_init__(self) -> None:
        if self.duration <= timedelta(0):
            raise ValueError(f"a deadline duration must be positive, not {self.duration}")

    def next_deadline(
        self, opened_at: datetime, game_zone: str, *, not_before: datetime | None = None
    ) -> datetime:
        # ``not_before`` is ignored: the span is counted from the opening, which does not move.
        return _utc(opened_at) + self.duration

    def describe(self) -> str:
        return f"{duration_text(self.duration)} after the step opens"

    def normalised(self) -> str:
        return _compact_duration(self.duration)


@dataclass(frozen=True, slots=True)
class WeeklyDeadline:
    """Some weekdays (0 = Monday) at one wall-clock time; ``zone`` None means the game's zone.

    To give players a minimum time after a step opens late in the week, pass
    ``not_before=opened_at + minimum``.
    """

    weekdays: tuple[int, ...]
    at: time
    zone: str | None = None

    def __post_init__(self) -> None:
        if not self.weekdays or any(not 0 <= day <= 6 for day in self.weekdays):
            raise ValueError(f"weekdays must be a non-empty set of 0..6, not {self.weekdays}")

    def next_deadline(
        self, opened_at: datetime, game_zone: str, *, not_before: datetime | None = None
    ) -> datetime:
        zone = _zone(self.zone or game_zone)
        start = _utc(opened_at if not_before is None else not_before)
        first_day = start.astimezone(zone).date()
        # Eight days cover every weekday once plus today's weekday a week on.
        days = (first_day + timedelta(days=offset) for offset in range(8))
        slots = (
            resolve_wall_time(datetime.combine(d, self.at), zone)
            for d in days
            if d.weekday() in self.weekdays
        )
        return next(slot for slot in slots if slot > start)

    def describe(self) -> str:
        return f"every {_day_list(self.weekdays)} at {_clock_text(self.at)} ({_zone_text(self.zone)})"

    def normalised(self) -> str:
        days = ",".join(DAY_NAMES[d][:3] for d in sorted(self.weekdays))
        return _joined(f"{days} {_clock_text(self.at)}", self.zone)


#: A game's deadline rule. Each kind has ``next_deadline(opened_at, game_zone, *, not_before=None)``
#: (the deadline, aware UTC), ``describe()`` (words for letters) and ``normalised()`` (canonical
#: text that :func:`parse_deadline_spec` reads back unchanged).
DeadlineSpec = AbsoluteDeadline | DurationDeadline | WeeklyDeadline


# --- reading rules -----------------------------------------------------------------------------


def parse_deadline_spec(text: str) -> DeadlineSpec | SpecProblem:
    """Read a deadline rule; the kind is told by how the text starts (a date, a number, a weekday)."""
    cleaned = text.strip()
    if not cleaned:
        return SpecProblem(text, f"no deadline given ({_EXAMPLES})")
    if len(cleaned) > _MAX_TEXT:
        return SpecProblem(text, f"too long for a deadline ({_EXAMPLES})")
    if re.match(r"\d{4}-", cleaned):
        return _parse_absolute(cleaned)
    if cleaned[0].isdigit():
        duration = _parse_duration(cleaned)
        return duration if isinstance(duration, SpecProblem) else DurationDeadline(duration)
    return _parse_weekly(cleaned)


def parse_duration(text: str) -> timedelta | None:
    """A positive span such as ``48h``, ``2d``, ``1d12h`` or ``36 hours``; None when unreadable."""
    duration = read_duration(text)
    return None if isinstance(duration, SpecProblem) else duration


def read_duration(text: str) -> timedelta | SpecProblem:
    """:func:`parse_duration` with the reason when it cannot be read (no unit, zero, too long)."""
    return _parse_duration(text.strip())


def parse_delay(text: str) -> timedelta | SpecProblem:
    """A wait the game master sets, such as early processing's or a grace: ``10s``, ``5m``,
    ``1h30m``; ``0`` (or ``none``) for no wait at all."""
    words = text.strip().lower()
    if words in _NO_DELAY:
        return timedelta(0)
    return _parse_duration(words, units=_DELAY_UNITS, zero=True)


def duration_shaped(text: str) -> bool:
    """Whether ``text`` is written as a duration (``24h``, ``0h``, ``36``), whether or not
    :func:`read_duration` takes its value: a step key never is."""
    words = _duration_words(text)
    return words.isdigit() or bool(_DURATION.fullmatch(words))


def _duration_words(text: str) -> str:
    return re.sub(r"\band\b|,", " ", text.lower()).strip()


def _parse_duration(
    text: str, *, units: Mapping[str, timedelta] = _UNITS, zero: bool = False
) -> timedelta | SpecProblem:
    words = _duration_words(text)
    if words.isdigit():
        return SpecProblem(text, f"give a unit: {words}h, {words}d or {words}m")
    if not _DURATION.fullmatch(words):
        return SpecProblem(text, "not a duration: expected e.g. 48h, 2d, 1d12h or 36 hours")
    total = _sum_parts(text, words, units)
    if isinstance(total, SpecProblem):
        return total
    if total < timedelta(0) or (total == timedelta(0) and not zero):
        return SpecProblem(text, "a deadline duration must be more than zero")
    if total > MAX_DURATION:
        return SpecProblem(text, f"longer than {MAX_DURATION.days} days")
    return total


def _sum_parts(text: str, words: str, units: Mapping[str, timedelta]) -> timedelta | SpecProblem:
    total = timedelta(0)
    seen: set[timedelta] = set()
    for amount, unit in _DURATION_PART.findall(words):
        if unit not in units:
            return SpecProblem(text, _unit_problem(unit, seconds="s" in units))
        if units[unit] in seen:
            return SpecProblem(text, f"the unit {unit!r} is given twice")
        seen.add(units[unit])
        total += int(amount) * units[unit]
    return total


def _unit_problem(unit: str, *, seconds: bool = False) -> str:
    if unit.startswith(("mo", "y")):
        return "months and years differ in length: give days (e.g. 30d)"
    return f"unknown unit {unit!r}: use " + ("w, d, h, m or s" if seconds else "w, d, h or m")


def _parse_absolute(text: str) -> AbsoluteDeadline | SpecProblem:
    match = _ABSOLUTE.fullmatch(text)
    if match is None:
        if _DATE_ONLY.fullmatch(text):
            return SpecProblem(text, f"give a time of day too, e.g. {text} 20:00")
        return SpecProblem(text, "expected a date and time such as 2026-12-01 20:00")
    wall = _wall_time(text, match)
    if isinstance(wall, SpecProblem):
        return wall
    if match.group(7) and match.group(8):
        return SpecProblem(text, "give either Z or a time zone name, not both")
    zone = "UTC" if match.group(7) else _zone_words(text, match.group(8))
    return zone if isinstance(zone, SpecProblem) else AbsoluteDeadline(wall, zone)


def _wall_time(text: str, match: re.Match[str]) -> datetime | SpecProblem:
    # Checked by hand rather than by catching datetime's ValueError: a bad date is data here.
    year, month, day, hour, minute = (int(g) for g in match.group(1, 2, 3, 4, 5))
    second = int(match.group(6) or 0)
    if not (year >= 1 and 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return SpecProblem(text, f"no such date: {match.group(1)}-{match.group(2)}-{match.group(3)}")
    if not (hour <= 23 and minute <= 59 and second <= 59):
        return SpecProblem(text, "no such time of day: use 00:00 to 23:59")
    return datetime(year, month, day, hour, minute, second)


def _parse_weekly(text: str) -> WeeklyDeadline | SpecProblem:
    tokens = [t for t in re.split(r"[\s,]+", text) if t and t.lower() not in _FILLERS]
    days: list[int] = []
    while tokens and (day := _weekday(tokens[0])) is not None:
        days.append(day)
        tokens.pop(0)
    if not days:
        return SpecProblem(text, f"not a weekday: {tokens[0] if tokens else text!r} ({_EXAMPLES})")
    if not tokens:
        return SpecProblem(text, "a weekly deadline needs a time of day, e.g. Mon,Thu 20:00")
    at = _clock(tokens[0])
    if at is None:
        return SpecProblem(text, f"expected a time of day as HH:MM (00:00 to 23:59), not {tokens[0]!r}")
    zone = _zone_words(text, " ".join(tokens[1:]) or None)
    if isinstance(zone, SpecProblem):
        return zone
    return WeeklyDeadline(tuple(sorted(set(days))), at, zone)


def _weekday(token: str) -> int | None:
    """Monday from ``mo``, ``mon``, ``monday`` or ``mondays``; two letters already tell every day apart."""
    word = token.lower()
    if word == "weds":
        return 2
    for number, name in enumerate(DAY_NAMES):
        full = name.lower()
        if (len(word) >= 2 and full.startswith(word)) or word == full + "s":
            return number
    return None


def _clock(token: str) -> time | None:
    match = _CLOCK.fullmatch(token)
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2))
    return time(hour, minute) if hour <= 23 and minute <= 59 else None


def _zone_words(text: str, words: str | None) -> str | SpecProblem | None:
    """The canonical zone named by the words after the time; None when there are none."""
    if words is None:
        return None
    tokens = words.split()
    zone = canonical_zone(tokens[0])
    if zone is None:
        return SpecProblem(text, f"unknown time zone {tokens[0]!r}: use a name like Europe/Berlin")
    if len(tokens) > 1:
        return SpecProblem(text, f"unexpected text after the time zone: {' '.join(tokens[1:])!r}")
    return zone


# --- time zones ----------------------------------------------------------------------------------


def canonical_zone(name: str) -> str | None:
    """The IANA key for ``name``, forgiving case (``europe/berlin``, ``utc``); None when unknown."""
    if not _ZONE_KEY.fullmatch(name):
        return None
    # Keys are file names, so case matters on most systems; try the usual spellings
    # ("america/new_york" titles to "America/New_York", "utc" uppers to "UTC").
    for key in dict.fromkeys((name, name.title(), name.upper())):
        if _load_zone(key) is not None:
            return key
    return None


def valid_zone(name: str) -> bool:
    """Whether ``name`` is a time zone mailbot can use (see :func:`canonical_zone`)."""
    return canonical_zone(name) is not None


def _load_zone(key: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        # Not found, not a TZif file, or a directory such as "America".
        return None


def _zone(name: str) -> ZoneInfo:
    key = canonical_zone(name)
    if key is None:
        raise ConfigError(f"unknown time zone {name!r}")
    return ZoneInfo(key)


def resolve_wall_time(wall: datetime, zone: ZoneInfo) -> datetime:
    """The UTC instant when clocks in ``zone`` show the naive ``wall``.

    Autumn fold: the first occurrence. Spring gap: the first valid instant
    after the gap, i.e. the jump itself (see the module docstring).
    """
    instant = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if instant.astimezone(zone).replace(tzinfo=None) == wall:
        return instant
    return _gap_end(wall, zone)


def _gap_end(wall: datetime, zone: ZoneInfo) -> datetime:
    # The readings of a missing wall time with the old and the new offset bracket the jump;
    # bisect to the microsecond for the first instant on the new offset.
    low, high = sorted(wall.replace(tzinfo=zone, fold=f).astimezone(UTC) for f in (0, 1))
    after = high.astimezone(zone).utcoffset()
    while high - low > timedelta(microseconds=1):
        middle = low + (high - low) // 2
        if middle.astimezone(zone).utcoffset() == after:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True, slots=True)
class WallTimeNote:
    """A day on which the wall-clock time a rule names is skipped by the clocks (spring) or
    shown twice (autumn), and the deadline that day: what the game master is told."""

    wall: datetime  # naive: the time as the rule names it, on that day
    zone: str
    skipped: bool  # True: the clocks jump over it; False: they show it twice
    deadline: datetime  # aware UTC: the jump itself, or the first occurrence
    change: tuple[time, time]  # the clocks' reading before and after they change

    def text(self) -> str:
        """E.g. ``02:30 does not exist on Sun 28 Mar 2027 in Europe/Berlin (the clocks jump
        from 02:00 to 03:00 that night): the deadline is Sun 28 Mar 2027 03:00 CEST, the jump``."""
        day, clock = _day_text(self.wall.date()), _clock_text(self.wall.time())
        before, after = (_clock_text(t) for t in self.change)
        when = local_time(self.deadline, self.zone)
        if self.skipped:
            return (
                f"{clock} does not exist on {day} in {self.zone} (the clocks jump from {before} to"
                f" {after} that night): the deadline is {when}, the moment of the jump"
            )
        return (
            f"{clock} comes twice on {day} in {self.zone} (the clocks go back from {before} to"
            f" {after} that night): the deadline is the first, {when}"
        )

    def brief(self) -> str:
        """The same in a few words, beside the rule in players' letters: ``02:30 is skipped that
        night: the deadline is 03:00 CEST``."""
        clock, when = _clock_text(self.wall.time()), self.deadline.astimezone(ZoneInfo(self.zone))
        at = f"{_clock_text(when.time())} {when.tzname()}"
        if self.skipped:
            return f"{clock} is skipped that night: the deadline is {at}"
        return f"{clock} comes twice that night: the deadline is the first, {at}"


def wall_time_notes(spec: DeadlineSpec, game_zone: str, now: datetime) -> list[WallTimeNote]:
    """The days on which a rule's wall-clock time is skipped or shown twice by the clocks, for
    the game master who typed it: an absolute time's own day; a weekly rule's listed days in
    the year from ``now`` (a zone changes its clocks twice a year at most). A duration names no
    wall time. The deadline those days is the module's rule (see the docstring)."""
    if isinstance(spec, DurationDeadline):
        return []
    key = canonical_zone(spec.zone or game_zone)
    if key is None:
        raise ConfigError(f"unknown time zone {spec.zone or game_zone!r}")
    if isinstance(spec, AbsoluteDeadline):
        walls = [spec.at]
    else:
        first = _utc(now).astimezone(ZoneInfo(key)).date()
        days = (first + timedelta(days=n) for n in range(372))
        walls = [datetime.combine(d, spec.at) for d in days if d.weekday() in spec.weekdays]
    return [note for wall in walls if (note := _wall_note(wall, key)) is not None]


def _wall_note(wall: datetime, key: str) -> WallTimeNote | None:
    zone = ZoneInfo(key)
    if wall.replace(tzinfo=zone, fold=0).utcoffset() == wall.replace(tzinfo=zone, fold=1).utcoffset():
        return None  # the time is shown once that day, as nearly always
    deadline = resolve_wall_time(wall, zone)
    skipped = deadline.astimezone(zone).replace(tzinfo=None) != wall
    jump = _gap_end(wall, zone)  # bisects to the change of offset: a fold's as well as a gap's
    just_before = jump - timedelta(microseconds=1)
    offset_before = just_before.astimezone(zone).utcoffset() or timedelta(0)
    change = ((jump + offset_before).time(), jump.astimezone(zone).time())
    return WallTimeNote(wall, key, skipped, deadline, change)


def _utc(instant: datetime) -> datetime:
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"a timezone-aware datetime is needed, not {instant!r}")
    return instant.astimezone(UTC)


# --- steps, grace and reminders ----------------------------------------------------------------


def step_deadline(
    spec: DeadlineSpec,
    opened_at: datetime,
    game_zone: str,
    duration_override: timedelta | None,
    *,
    not_before: datetime | None = None,
) -> datetime:
    """A step's deadline: its own duration if it has one (short sub-steps), else the game's rule."""
    if duration_override is not None:
        return DurationDeadline(duration_override).next_deadline(opened_at, game_zone)
    return spec.next_deadline(opened_at, game_zone, not_before=not_before)


def with_grace(deadline: datetime, grace: timedelta) -> datetime:
    """When a step really closes: the announced deadline plus a grace period for late mail."""
    if grace < timedelta(0):
        raise ValueError(f"grace must not be negative, not {grace}")
    return _utc(deadline) + grace


def reminder_times(deadline: datetime, offsets: Sequence[timedelta], opened_at: datetime) -> list[datetime]:
    """Reminder instants ``offset`` before the deadline, sorted, each once.

    Offsets that are not positive would not remind anyone of anything and are
    dropped; so are reminders at or before the opening, since the opening
    letter itself already tells the deadline.
    """
    end, start = _utc(deadline), _utc(opened_at)
    times = {end - offset for offset in offsets if offset > timedelta(0)}
    return sorted(t for t in times if t > start)


# --- words for letters -------------------------------------------------------------------------


def describe(spec: DeadlineSpec) -> str:
    """The rule in words for letters, e.g. ``every Monday and Thursday at 20:00 (Europe/Berlin)``."""
    return spec.describe()


def local_time(instant: datetime, zone: str) -> str:
    """``instant`` as a reader in ``zone`` sees it: ``Tue 1 Dec 2026 20:00 CET``.

    Names are spelled here, not by ``strftime``, so the server's locale never leaks into letters.
    """
    local = _utc(instant).astimezone(_zone(zone))
    return f"{_day_text(local.date())} {_clock_text(local.time())} {local.tzname()}"


def short_time(instant: datetime, zone: str) -> str:
    """``instant`` in ``zone`` for a subject line: ``Tue 1 Dec 20:00``, no year, seconds or zone
    (a mail index has room for little; the letter itself gives the whole :func:`local_time`)."""
    local = _utc(instant).astimezone(_zone(zone))
    return f"{DAY_NAMES[local.weekday()][:3]} {local.day} {MONTH_ABBR[local.month - 1]} {local:%H:%M}"


def duration_text(duration: timedelta) -> str:
    """``1 day 12 hours``; ``90m`` reads as ``1 hour 30 minutes`` (seconds are not shown)."""
    words = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in _split_duration(duration)]
    return " ".join(words) or "less than a minute"


def delay_text(delay: timedelta) -> str:
    """A short wait in words, seconds included: ``10 seconds``, ``5 minutes 30 seconds``."""
    seconds = int(delay.total_seconds()) % 60
    words = [duration_text(delay)] if delay >= timedelta(minutes=1) else []
    if seconds or not words:
        words.append(f"{seconds} second{'' if seconds == 1 else 's'}")
    return " ".join(words)


def _compact_duration(duration: timedelta) -> str:
    return "".join(f"{n}{unit[0]}" for n, unit in _split_duration(duration)) or "0m"


def _split_duration(duration: timedelta) -> list[tuple[int, str]]:
    minutes = int(duration.total_seconds()) // 60
    parts = ((minutes // 1440, "day"), (minutes // 60 % 24, "hour"), (minutes % 60, "minute"))
    return [(n, unit) for n, unit in parts if n]


def _day_list(weekdays: Sequence[int]) -> str:
    names = [DAY_NAMES[d] for d in sorted(weekdays)]
    if len(names) == 7:
        return "day"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _day_text(day: date) -> str:
    return f"{DAY_NAMES[day.weekday()][:3]} {day.day} {MONTH_ABBR[day.month - 1]} {day.year}"


def _clock_text(at: time) -> str:
    return f"{at:%H:%M}" if at.second == 0 else f"{at:%H:%M:%S}"


def _zone_text(zone: str | None) -> str:
    return zone or "game time zone"


def _joined(text: str, zone: str | None) -> str:
    return f"{text} {zone}" if zone else text
