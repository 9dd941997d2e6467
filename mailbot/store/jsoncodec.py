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
  digits or more is read by ``json`` (a hash in a string can trip this too: it is only
  slower); text orjson cannot read (``NaN``, ``1e400``) is read by ``json`` as well.

Not-a-number and infinities are not kept in the store (PostgreSQL's JSON refuses them);
orjson writes them as null. The hashed spelling of the event chain is
``mailbot.core.chain.canonical_json``, not this.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
_LONG_NUMBER = re.compile(r"\d{19}")


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, option=_OPTIONS).decode("utf-8")
    except TypeError:
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if _LONG_NUMBER.search(text) is None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)
