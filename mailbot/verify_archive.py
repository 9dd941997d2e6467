#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a mailbot game archive with nothing but the Python standard library.

    python3 verify.py DIR        (DIR holds game.json; this file is copied there as verify.py)

It re-implements, from the published byte-exact specification and NOT by
importing mailbot, everything a player needs to trust the moderator:

* every revealed seed matches the commitment published when its step opened;
* the orders archived for a step hash to the digest the dice were keyed with;
* every logged roll is re-derived from seed, orders digest, step, label and
  counter, with no hidden re-rolls (each label's counters follow on);
* the event chain is unbroken, and its step entries name the same
  commitments and digests as the steps.

Prints ``verify: <n> rolls, <n> ok, <k> failed`` and exits 1 on any failure.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import sys
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
ORDERS_TAG = "mailbot-orders-v1"
DICE_TAG = "mailbot-dice-v1"
CHUNKS = struct.Struct(">8I")


def s(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def orders_digest(orders: dict[str, list[str]]) -> str:
    parts = [s(ORDERS_TAG)]
    for seat in sorted(orders):
        lines = orders[seat]
        parts.append(s(seat) + len(lines).to_bytes(4, "big"))
        parts.extend(hashlib.sha256(line.encode("utf-8")).digest() for line in lines)
    return hashlib.sha256(b"".join(parts)).hexdigest()


def faces(
    seed: bytes, key: tuple[str, str, str], sides: int, count: int, counter: int
) -> tuple[list[int], int]:
    """The faces of one roll: ``key`` is (step, orders digest, label)."""
    step, digest, label = key
    limit = 2**32 - (2**32 % sides)
    prefix = s(DICE_TAG) + s(step) + s(digest) + s(label)
    found: list[int] = []
    while len(found) < count:
        block = hmac.new(seed, prefix + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
        for x in CHUNKS.unpack(block):
            if x < limit:
                found.append(x % sides + 1)
                if len(found) == count:
                    break
    return found, counter


def entry_hash(index: int, kind: str, payload: Any, prev: str) -> str:
    text = json.dumps(
        [index, kind, prev, payload],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Checker:
    def __init__(self) -> None:
        self.rolls = self.ok = self.failed = self.unrevealed = 0
        self.problems: list[str] = []

    def fail(self, text: str) -> None:
        self.problems.append(text)

    def step(self, step: dict[str, Any]) -> None:
        name = f"step {step['key']} (attempt {step['attempt']})"
        if step.get("seed") is None:
            self.unrevealed += len(step["rolls"])
            return
        seed = bytes.fromhex(step["seed"])
        if hashlib.sha256(seed).hexdigest() != step["commitment"]:
            self.fail(f"{name}: the seed does not match its commitment")
        digest = orders_digest(step["orders"])
        if step["state"] != "open" and digest != step["orders_digest"]:
            self.fail(f"{name}: the archived orders do not hash to the digest the dice used")
        self.rolls_of(name, seed, step)

    def rolls_of(self, name: str, seed: bytes, step: dict[str, Any]) -> None:
        next_counter: dict[str, int] = {}
        for roll in step["rolls"]:
            self.rolls += 1
            key = (step["key"], step["orders_digest"], roll["label"])
            derived, after = faces(seed, key, roll["sides"], roll["count"], roll["counter"])
            total = sum(roll["faces"]) + sum(roll["modifiers"].values())
            chained = next_counter.get(roll["label"], 0) == roll["counter"]
            if derived == roll["faces"] and total == roll["total"] and chained:
                self.ok += 1
            else:
                self.failed += 1
                self.fail(
                    f"{name}: roll {roll['label']} #{roll['counter']} does not re-derive "
                    f"(logged {roll['faces']}, derived {derived})"
                )
            next_counter[roll["label"]] = after

    def chain(self, entries: list[dict[str, Any]], steps: list[dict[str, Any]]) -> None:
        prev = GENESIS
        for n, entry in enumerate(entries):
            good = (
                entry["index"] == n
                and entry["prev_hash"] == prev
                and entry["hash"] == entry_hash(n, entry["kind"], entry["payload"], prev)
            )
            if not good:
                self.fail(
                    f"event chain: entry {n} ({entry['kind']}) is altered; later entries cannot be trusted"
                )
                return
            prev = entry["hash"]
        self.chain_matches_steps(entries, steps)

    def chain_matches_steps(self, entries: list[dict[str, Any]], steps: list[dict[str, Any]]) -> None:
        by_key = {(st["key"], st["attempt"]): st for st in steps}
        for entry in entries:
            p = entry["payload"]
            st = by_key.get((p.get("step"), p.get("attempt")))
            if st is None:
                continue
            if entry["kind"] == "step-opened" and p["commitment"] != st["commitment"]:
                self.fail(f"step {st['key']}: its commitment differs from the one logged when it opened")
            if entry["kind"] == "step-resolved" and p["orders_digest"] != st["orders_digest"]:
                self.fail(f"step {st['key']}: its orders digest differs from the one logged when it resolved")

    def reports(self, reports: list[dict[str, Any]], entries: list[dict[str, Any]]) -> None:
        """Every archived report must be the text whose hash the chain recorded when it was sent."""
        logged = {e["payload"].get("sha256") for e in entries if e["kind"] == "report"}
        for n, report in enumerate(reports):
            if hashlib.sha256(report["text"].encode("utf-8")).hexdigest() not in logged:
                self.fail(f"report {n} (to {report['seat'] or 'the GM'}, {report['step']}) was altered")


def verify(folder: Path) -> Checker:
    data = json.loads((folder / "game.json").read_text(encoding="utf-8"))
    checker = Checker()
    for step in data["steps"]:
        checker.step(step)
    checker.chain(data["chain"], data["steps"])
    checker.reports(data.get("reports", []), data["chain"])
    return checker


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: verify.py ARCHIVE_DIR", file=sys.stderr)
        return 2
    checker = verify(Path(argv[1]))
    for problem in checker.problems:
        print(f"FAILED: {problem}")
    if checker.unrevealed:
        print(f"not yet verifiable: {checker.unrevealed} rolls whose seeds are still secret")
    print(f"verify: {checker.rolls} rolls, {checker.ok} ok, {checker.failed} failed")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
