# SPDX-License-Identifier: GPL-3.0-or-later
"""``game.json`` read and its shape checked before any check reads it: a damaged or hand-edited
archive (not JSON, a field missing, a number where a list belongs) is said in ``FAILED`` lines
naming the file and the field, never as a traceback that stops the checker.

The shape is what the checks index directly: the records of the chain, the steps, their rolls
and seals, and the reports. A chain entry's payload is the chain's own business: an altered one
fails its hash, and ``checker.verify`` turns what a payload's odd values break into a line too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .rules import MAX_COUNT, MAX_COUNTER, MAX_SIDES

#: a field's name and the JSON types it may hold (``None``: null)
Fields = dict[str, tuple[type | None, ...]]

TEXT: tuple[type | None, ...] = (str,)
NUMBER: tuple[type | None, ...] = (int,)
TEXT_OR_NULL: tuple[type | None, ...] = (str, None)

ENTRY: Fields = {"index": NUMBER, "kind": TEXT, "prev_hash": TEXT, "hash": TEXT, "payload": (dict,)}
STEP: Fields = {"key": TEXT, "attempt": NUMBER, "commitment": TEXT, "state": TEXT, "rolls": (list,)}
STEP_MAYBE: Fields = {"seed": TEXT_OR_NULL, "orders": (dict,), "orders_digest": TEXT_OR_NULL}
STEP_MAYBE |= {"salts": (dict,), "sealed": (dict,)}
ROLL: Fields = {"label": TEXT, "sides": NUMBER, "count": NUMBER, "counter": NUMBER, "faces": (list,)}
ROLL |= {"modifiers": (dict,), "total": NUMBER}
SEAL: Fields = {"value": TEXT, "salt": TEXT, "receipt": TEXT}
SEAL_MAYBE: Fields = {"line": TEXT_OR_NULL}
REPORT: Fields = {"seat": TEXT_OR_NULL, "step": TEXT, "chain_head": TEXT}
REPORT_MAYBE: Fields = {"salt": TEXT_OR_NULL, "text": TEXT, "text_file": TEXT_OR_NULL, "html": TEXT_OR_NULL}
REPORT_MAYBE |= {"html_file": TEXT_OR_NULL, "html_swaps": (list, None), "map_file": TEXT_OR_NULL}
REPORT_MAYBE |= {"map_svg": TEXT_OR_NULL}
HEX = re.compile(r"^(?:[0-9a-fA-F]{2})*$")


def read_game(path: Path) -> tuple[dict[str, Any] | None, str]:
    """``game.json``'s content and "", or None and why it cannot be read (one line)."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        return None, f"{path} cannot be read: {exc.strerror or exc}"
    except UnicodeDecodeError as exc:
        return None, f"{path} is not UTF-8 text (byte {exc.start} is not)"
    except json.JSONDecodeError as exc:
        return None, f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    except RecursionError:
        return None, f"{path} is not valid JSON: nested too deep to read"
    except ValueError as exc:  # a number of more digits than Python reads (4,300); not its advice
        return None, f"{path} cannot be read: {str(exc).split(';')[0]}"
    if not isinstance(data, dict):
        return None, f"{path} is not a JSON object but {kind_of(data)}"
    return data, ""


def kind_of(value: object) -> str:
    """A JSON value's kind as a reader says it."""
    names = {dict: "an object", list: "a list", str: "a text", bool: "true or false", int: "a number"}
    return "null" if value is None else names.get(type(value), "a number")


def fits(value: object, allowed: tuple[type | None, ...]) -> bool:
    # true and false are numbers to Python but never a count, an index or a face here
    if isinstance(value, bool):
        return False
    return any(value is None if kind is None else isinstance(value, kind) for kind in allowed)


def record(where: str, value: object, needed: Fields, maybe: Fields | None = None) -> list[str]:
    """What is wrong with one record: not an object, a needed field missing, a field of a
    wrong kind (the optional ones only when present)."""
    if not isinstance(value, dict):
        return [f"{where} is {kind_of(value)}, not an object"]
    missing = [repr(name) for name in needed if name not in value]
    problems = [f"{where} has no {', '.join(missing)}"] if missing else []
    for name, allowed in (needed | (maybe or {})).items():
        if name in value and not fits(value[name], allowed):
            problems.append(f"{where}: {name!r} is {kind_of(value[name])}")
    return problems


def hex_text(where: str, value: object) -> list[str]:
    """A seed or salt: hexadecimal digits, two a byte."""
    if value is None or (isinstance(value, str) and HEX.match(value)):
        return []
    return [f"{where} is not hexadecimal"]


def listed(where: str, value: object, each: str, check: Callable[[str, object], list[str]]) -> list[str]:
    """Every item of a list (``check(where, item)``), or why it is no list."""
    if not isinstance(value, list):
        return [f"{where} is {kind_of(value)}, not a list"]
    return [problem for n, item in enumerate(value) for problem in check(f"{each} {n}", item)]


def entry(where: str, value: object) -> list[str]:
    return record(where, value, ENTRY)


#: a roll's numbers and the range the dice can roll them in (``rules``)
ROLL_RANGES = {"sides": (1, MAX_SIDES), "count": (0, MAX_COUNT), "counter": (0, MAX_COUNTER)}


def roll(where: str, value: object) -> list[str]:
    problems = record(where, value, ROLL)
    if problems or not isinstance(value, dict):
        return problems
    # Before any roll is derived: deriving takes time in the count, and for ever past 2**32 sides.
    problems += [
        f"{where} ({value['label']!r}): its {name} {value[name]} is out of range ({low} to {high})"
        for name, (low, high) in ROLL_RANGES.items()
        if not low <= value[name] <= high
    ]
    if not all(fits(face, NUMBER) for face in value["faces"]):
        problems.append(f"{where}: its faces are not all numbers")
    if not all(fits(added, NUMBER) for added in value["modifiers"].values()):
        problems.append(f"{where}: its modifiers are not all numbers")
    return problems


def seals(where: str, sealed: dict[str, Any]) -> list[str]:
    """``sealed``: seat -> label -> the value, its salt and receipt."""
    problems = []
    for seat, values in sealed.items():
        if not isinstance(values, dict):
            problems.append(f"{where}: the seals of {seat} are {kind_of(values)}, not an object")
            continue
        for label, item in values.items():
            problems += record(f"{where}: {seat}'s sealed {label}", item, SEAL, SEAL_MAYBE)
    return problems


def order_lines(where: str, orders: dict[str, Any]) -> list[str]:
    return [
        f"{where}: the orders of {seat} are not a list of lines"
        for seat, lines in orders.items()
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines)
    ]


def step(where: str, value: object) -> list[str]:
    problems = record(where, value, STEP, STEP_MAYBE)
    if problems or not isinstance(value, dict):
        return problems
    if isinstance(value.get("seed"), str) and not all(name in value for name in ("orders", "orders_digest")):
        problems.append(f"{where}: its seed is revealed, but its orders or their digest are missing")
    problems += hex_text(f"{where}: its seed", value.get("seed"))
    problems += order_lines(where, value.get("orders", {}))
    for seat, salt in value.get("salts", {}).items():
        problems += hex_text(f"{where}: the salt of {seat}'s orders", salt)
    problems += seals(where, value.get("sealed", {}))
    return problems + listed(f"{where}: its rolls", value["rolls"], f"{where}: roll", roll)


def swaps(where: str, value: object) -> list[str]:
    pairs = value if isinstance(value, list) else []
    if all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
        return []
    return [f"{where}: its html_swaps are not pairs"]


def report(where: str, value: object) -> list[str]:
    problems = record(where, value, REPORT, REPORT_MAYBE)
    if problems or not isinstance(value, dict):
        return problems
    if "text" not in value and "text_file" not in value:
        problems.append(f"{where} has neither 'text' nor 'text_file'")
    return (
        problems + hex_text(f"{where}: its salt", value.get("salt")) + swaps(where, value.get("html_swaps"))
    )


def layers(value: object) -> list[str]:
    if value is None or (isinstance(value, dict) and all(isinstance(t, str) for t in value.values())):
        return []
    return ["game.json: 'map_layers' is not an object of texts"]


def shape(data: dict[str, Any]) -> list[str]:
    """Every problem of ``game.json``'s shape, each a line naming the record and field; none:
    the checks can read it."""
    problems = record("game.json", data, {"chain": (list,), "steps": (list,), "game": (dict,)})
    problems += record("game.json", data, {}, {"reports": (list,)})
    if problems:
        return problems
    problems += listed("game.json: 'chain'", data["chain"], "game.json: chain entry", entry)
    problems += listed("game.json: 'steps'", data["steps"], "game.json: step", step)
    problems += listed("game.json: 'reports'", data.get("reports", []), "game.json: report", report)
    return problems + layers(data.get("map_layers"))
