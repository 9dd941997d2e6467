# SPDX-License-Identifier: GPL-3.0-or-later
"""The JSON columns read back what the standard library's JSON gave back, on both databases."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from sqlmodel import Session

from mailbot.store import jsoncodec
from mailbot.store.game_tables import RollRow
from tests.store.test_rows import _parents

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@given(_VALUES)
@settings(max_examples=400, deadline=None)
def test_what_is_written_reads_back_as_the_standard_library_reads_its_own(value: Any) -> None:
    expected = json.loads(json.dumps(value))
    got = jsoncodec.loads(jsoncodec.dumps(value))
    assert got == expected
    assert json.dumps(got) == json.dumps(expected)  # the same types too (an int stays an int)


def test_big_integers_stay_integers() -> None:
    for value in (2**63, 2**64 + 1, -(2**70), {"nonce": 10**30}):
        assert jsoncodec.loads(jsoncodec.dumps(value)) == value
    assert jsoncodec.loads('{"a": 12345678901234567890123}') == {"a": 12345678901234567890123}


def test_integer_keys_are_written_as_the_standard_library_writes_them() -> None:
    assert jsoncodec.loads(jsoncodec.dumps({1: "a", "b": {2: 3}})) == {"1": "a", "b": {"2": 3}}


def test_what_the_standard_library_refuses_is_refused() -> None:
    @dataclasses.dataclass
    class Thing:
        a: int

    for value in (Thing(1), datetime(2026, 1, 1, tzinfo=UTC), {"when": datetime(2026, 1, 1, tzinfo=UTC)}):
        with pytest.raises(TypeError):
            jsoncodec.dumps(value)


def test_text_only_the_standard_library_reads_is_read() -> None:
    assert jsoncodec.loads('{"a": 1e400}') == {"a": float("inf")}
    assert jsoncodec.loads(b'{"a": [1, 2]}') == {"a": [1, 2]}


def test_a_json_column_round_trips_through_the_database(engine: Engine) -> None:
    _game_id, step_id = _parents(engine)
    data = {"big": 2**70, "keys": {"1": [1.5, None, True]}, "text": "überall \u2028 \x00"}
    with Session(engine) as session, session.begin():
        row = RollRow(step_id=step_id, position=0, data=data)
        session.add(row)
        session.flush()
        row_key = row.id
    with Session(engine) as session:
        stored = session.get(RollRow, row_key)
        assert stored is not None and stored.data == data


def test_a_long_number_anywhere_a_number_goes_stays_an_integer() -> None:
    for text in (
        "12345678901234567890",
        "[1, 12345678901234567890]",
        '{"a": -12345678901234567890}',
        '{"a":\n  12345678901234567890}',
        "[[12345678901234567890]]",
    ):
        assert jsoncodec.loads(text) == json.loads(text)
        assert json.dumps(jsoncodec.loads(text)) == json.dumps(json.loads(text))


def test_a_plain_state_is_read_by_orjson_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    monkeypatch.setattr(jsoncodec.json, "loads", read.append)
    value = jsoncodec.loads('{"hash": "a1234567890b", "n": 123456789012345678, "f": 1.5}')
    assert value == {"hash": "a1234567890b", "n": 123456789012345678, "f": 1.5}
    assert read == []


def test_a_lone_surrogate_reads_back_as_the_standard_library_reads_it() -> None:
    text = '{"s": "x\\ud800y"}'
    assert jsoncodec.loads(text) == json.loads(text) == {"s": "x\ud800y"}
