# SPDX-License-Identifier: GPL-3.0-or-later
"""The JSON of the store's JSON columns: orjson where it writes and reads what ``json`` would.

A Flat Top game keeps a ~50 kB state (and each step a snapshot of it) in JSON columns; the
standard library took about 7 ms of a game hour to write and read them, orjson a tenth of
that. Where orjson would differ, the standard library does the work, so a column reads back
exactly as before:

* writing, orjson refuses what it does not write as ``json`` does (keys that are not
  strings, integers over 64 bits; dataclasses and datetimes, which ``json`` refuses too)
  and ``json`` takes over;
* reading, orjson turns an integer over 64 bits into a float, so text with a run of 19
  digits or more is read by ``json`` (a string holding such a run, say in a hash, trips this
  too: it is only slower); text orjson cannot read (``NaN``, ``1e400``, lone surrogates) is
  read by ``json`` as well.

Not-a-number and infinities are not kept in the store (PostgreSQL's JSON refuses them);
orjson writes them as null. The hashed spelling of the event chain is
``mailbot.core.chain.canonical_json``, not this.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
#: every byte to "x" but the digits, to "0": a run of 19 digits is then found by a plain search
#: (a regular expression took 0.6 ms on a Flat Top state, three times orjson's reading of it)
_DIGIT_RUNS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x78 for byte in range(256))
_LONG_RUN = b"0" * 19


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, option=_OPTIONS).decode("utf-8")
    except TypeError:
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if _LONG_RUN not in raw.translate(_DIGIT_RUNS):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)
