# SPDX-License-Identifier: GPL-3.0-or-later
"""The event chain and the steps of a game archive: the chain unbroken, every step it opened or
resolved archived with the commitment it logged, every seed revealed in its place in the seed
chain, every seat's REVEAL linked to its CHAIN, the orders and seals the dice used the last ones
logged, and every roll re-derived (:class:`ChainChecker`)."""

from __future__ import annotations

from typing import Any

from .rules import (
    GENESIS,
    ORDER_KINDS,
    SEED_TAG,
    canonical,
    dice_key,
    entry_hash,
    faces,
    hashed,
    links,
    orders_digest,
    player_entropy,
    reveals_digest,
    s,
    salted,
    sha,
    step_salt,
)


class ChainChecker:
    """The event chain, the dice chains and every step's seed, orders, seals and rolls; the
    reports and letters are :class:`checker.Checker`'s, which adds them."""

    def __init__(self) -> None:
        self.rolls = self.ok = self.failed = self.unrevealed = 0
        self.secret_steps = 0  # resolved steps whose seed (and, hiding information, rolls) wait for the end
        self.problems: list[str] = []
        self.chain_ok = True
        self.entries: list[dict[str, Any]] = []
        self.rounds: dict[tuple[Any, Any], tuple[int, Any]] = {}  # (step, attempt): (entry, round)
        self.anchors: dict[str, list[tuple[int, str]]] = {}  # seat: each player's (entry, anchor)
        self.ended: dict[str, list[int]] = {}  # seat: entries that ended its chain (REPLACE)
        self.closed: dict[Any, int] = {}  # set-up attempt: the entry that closed its anchors
        self.server_anchor = ""  # the game's seed chain (none before dice chains)

    def fail(self, text: str) -> None:
        self.problems.append(text)

    # -- the chain -----------------------------------------------------------------

    def chain(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        prev = GENESIS
        for n, entry in enumerate(entries):
            try:
                recomputed = entry_hash(n, entry["kind"], entry["payload"], prev)
            except (TypeError, ValueError):
                recomputed = ""
            if entry["index"] != n or entry["prev_hash"] != prev or entry["hash"] != recomputed:
                self.fail(
                    f"event chain: entry {n} ({entry['kind']}) is altered; later entries cannot be trusted"
                )
                self.chain_ok = False
                return
            prev = entry["hash"]

    def logged(
        self, kind: str | tuple[str, ...], step: str, attempt: int | None = None
    ) -> list[dict[str, Any]]:
        kinds = (kind,) if isinstance(kind, str) else kind
        return [
            e["payload"]
            for e in self.entries
            if e["kind"] in kinds
            and e["payload"].get("step") == step
            and (attempt is None or e["payload"].get("attempt") == attempt)
        ]

    # -- the dice chains ---------------------------------------------------------------

    def dice_chains(self) -> None:
        """The server's seed chain links every step attempt's commitment to the game's anchor,
        round after round; every seat's reveal links to its anchor (``core.hashchain``)."""
        created: dict[str, Any] = next(
            (e["payload"] for e in self.entries if e["kind"] == "game-created"), {}
        )
        opened = [(n, e["payload"]) for n, e in enumerate(self.entries) if e["kind"] == "step-opened"]
        anchor = created.get("server_anchor")
        if anchor is None:
            if any("round" in p for _, p in opened):
                self.fail("the steps name rounds of a seed chain, but the game logged no anchor for it")
            return
        self.server_anchor = str(anchor)
        for k, (_, p) in enumerate(opened, 1):
            if p.get("round") != k:
                self.fail(
                    f"step {p.get('step')} (attempt {p.get('attempt')}): opened as round {p.get('round')} "
                    f"of the seed chain, not {k}: a seed was skipped or drawn outside the chain"
                )
        self.rounds = {(p.get("step"), p.get("attempt")): (n, p.get("round")) for n, p in opened}
        self.seat_chains()

    def seat_chains(self) -> None:
        """Each seat's anchors (one a player: a REPLACE ends the chain), the set-up's closing
        entry, and every reveal against the chain that counts for its step."""
        last: dict[tuple[str, int], tuple[int, str]] = {}  # (seat, anchor's entry): its last element
        for n, e in enumerate(self.entries):
            p, seat = e["payload"], str(e["payload"].get("seat"))
            if e["kind"] == "dice-chain":
                self.anchor_logged(n, seat, str(p.get("anchor")), last)
            elif e["kind"] == "dice-chain-ended":
                self.chain_ended(n, seat)
            elif e["kind"] == "setup-reveals":
                self.setup_closed(n, p)
            elif e["kind"] == "reveal":
                self.reveal_logged(n, seat, p, last)

    def anchor_logged(
        self, n: int, seat: str, anchor: str, last: dict[tuple[str, int], tuple[int, str]]
    ) -> None:
        if self.chain_at(seat, n) is not None:
            self.fail(f"{seat}'s dice chain anchor was logged again (entry {n}): it cannot change")
            return
        self.anchors.setdefault(seat, []).append((n, anchor))
        last[(seat, n)] = (0, anchor)

    def chain_ended(self, n: int, seat: str) -> None:
        """Only a REPLACE (a new player for the seat) ends a seat's chain: the GM's entry before."""
        if self.chain_at(seat, n) is None or n == 0 or self.entries[n - 1]["kind"] != "gm-replace":
            self.fail(f"{seat}'s dice chain was ended (entry {n}) without the seat being handed over")
        self.ended.setdefault(seat, []).append(n)

    def chain_at(self, seat: str, at: int) -> tuple[int, str] | None:
        """The seat's chain counting for what was opened (or closed) at entry ``at``."""
        found = None
        for n, anchor in self.anchors.get(seat, []):
            if n < at and not any(n < end < at for end in self.ended.get(seat, [])):
                found = (n, anchor)
        return found

    def setup_closed(self, n: int, p: dict[str, Any]) -> None:
        """The set-up's anchors closed when every seat had joined: those logged and not ended then."""
        taken = {str(e["payload"].get("seat")) for e in self.entries[:n] if e["kind"] == "seat-taken"}
        seats: list[str] = next(
            (e["payload"].get("seats", []) for e in self.entries if e["kind"] == "game-created"), []
        )
        if not set(seats) <= taken:
            self.fail(f"the set-up's dice chains were closed (entry {n}) before every seat had joined")
        current = sorted(seat for seat in self.anchors if self.chain_at(seat, n) is not None)
        if p.get("seats") != current:
            self.fail(f"the set-up's chained seats (entry {n}) are not the seats with an anchor then")
        self.closed[p.get("attempt")] = n

    def reveal_logged(
        self, n: int, seat: str, p: dict[str, Any], last: dict[tuple[str, int], tuple[int, str]]
    ) -> None:
        k = p.get("round")
        where = f"the REVEAL of {seat} at {p.get('step')} (round {k})"
        at, round_ = self.counted_at(p.get("step"), p.get("attempt"))
        chain = self.chain_at(seat, at)
        if p.get("step") == "setup" and p.get("attempt") not in self.closed:
            self.fail(f"{where}: logged before every seat had joined, when no set-up reveal is taken")
        elif chain is None:
            self.fail(f"{where}: the seat had no dice chain for that step")
        elif round_ != k:
            self.fail(f"{where}: not the round its step opened as")
        elif not isinstance(k, int) or not links(str(p.get("value")), k, *self.known(last[(seat, chain[0])])):
            self.fail(f"{where}: does not link to the seat's anchor: made up")
        else:
            last[(seat, chain[0])] = (k, str(p["value"]))

    @staticmethod
    def known(element: tuple[int, str]) -> tuple[str, int]:
        """A chain's last known (round, value) as ``links`` takes it: (value, round)."""
        return element[1], element[0]

    def counted_at(self, key: Any, attempt: Any) -> tuple[int, Any]:
        """(entry before which anchors count, round) for a step attempt: where it opened, or for
        the set-up where its anchors were closed (-1: never, so none counts)."""
        at, round_ = self.rounds.get((key, attempt), (-1, None))
        if key == "setup" and round_ is not None:
            return self.closed.get(attempt, -1), round_
        return at, round_

    def chained(self, step: dict[str, Any]) -> dict[str, str] | None:
        """The step's chained seats (anchor logged before it opened, or before the set-up's
        anchors closed) and their reveals logged before it resolved; None: dice version 2."""
        at, round_ = self.counted_at(step["key"], step["attempt"])
        seats = (
            [seat for seat in self.anchors if self.chain_at(seat, at) is not None]
            if round_ is not None
            else []
        )
        if not seats:
            return None
        revealed = {
            str(p.get("seat")): str(p.get("value"))
            for kind, p in self.before_resolution(step)
            if kind == "reveal" and (p.get("step"), p.get("attempt")) == (step["key"], step["attempt"])
        }
        return {seat: revealed.get(seat, "") for seat in seats}

    # -- steps -----------------------------------------------------------------------

    def steps(self, steps: list[dict[str, Any]], finished: bool) -> None:
        archived = {(st["key"], st["attempt"]) for st in steps}
        for entry in self.entries:
            p = entry["payload"]
            if (
                entry["kind"] in ("step-opened", "step-resolved")
                and (p.get("step"), p.get("attempt")) not in archived
            ):
                self.fail(
                    f"step {p.get('step')} (attempt {p.get('attempt')}) is in the event chain "
                    "but missing from the archive"
                )
        for step in steps:
            self.step(step, finished)

    def step(self, step: dict[str, Any], finished: bool) -> None:
        key, attempt = step["key"], step["attempt"]
        name = f"step {key} (attempt {attempt})"
        opened = self.logged("step-opened", key, attempt)
        if not opened:
            self.fail(f"{name}: the event chain never opened it")
        elif opened[0]["commitment"] != step["commitment"]:
            self.fail(f"{name}: its commitment differs from the one logged when it opened")
        resolved = self.logged("step-resolved", key, attempt)
        if step["state"] == "resolved" and not resolved:
            self.fail(f"{name}: marked resolved, but the event chain never resolved it")
        if not resolved:
            if step["rolls"]:
                self.fail(f"{name}: it has rolls but the event chain never resolved it")
            return
        if step["state"] == "open":
            self.fail(f"{name}: the event chain resolved it, but the archive shows it open")
        self.order_sets(name, step)
        self.sealed(name, step)
        if step.get("seed") is None:
            if finished:
                self.fail(f"{name}: the game is over but its seed is withheld")
            else:
                self.unrevealed += len(step["rolls"])
                self.secret_steps += 1
            return
        self.revealed(name, step, resolved[0])

    def revealed(self, name: str, step: dict[str, Any], resolved: dict[str, Any]) -> None:
        seed = bytes.fromhex(step["seed"])
        round_ = self.rounds.get((step["key"], step["attempt"]), (-1, None))[1]
        if (sha(s(SEED_TAG) + seed) if round_ is not None else sha(seed)) != step["commitment"]:
            self.fail(f"{name}: the seed does not match its commitment")
        if isinstance(round_, int) and hashed(seed, round_).hex() != self.server_anchor:
            self.fail(f"{name}: its seed is not round {round_} of the seed chain the game began with")
        digest = orders_digest(step["orders"])
        if digest != step["orders_digest"]:
            self.fail(f"{name}: the archived orders do not hash to the digest the dice used")
        salt = step_salt(seed, step["key"])
        if "orders" in resolved and resolved["orders"] != salted(step["orders_digest"], salt):
            self.fail(f"{name}: its orders digest differs from the one logged when it resolved")
        if "orders_digest" in resolved and resolved["orders_digest"] != step["orders_digest"]:
            self.fail(f"{name}: its orders digest differs from the one logged when it resolved")
        chained = self.chained(step)
        if chained is not None:
            self.chained_dice(name, step, resolved, seed, chained)
        else:
            if resolved.get("dice") is not None:
                self.fail(f"{name}: rolled as dice version {resolved['dice']}, but no seat had a dice chain")
            contributions = [
                (str(p["seat"]), str(p["message_id"]), str(p["nonce"]))
                for p in self.logged("entropy", step["key"], step["attempt"])
            ]
            entropy = player_entropy(contributions)
            if "entropy" in resolved and resolved["entropy"] != entropy:
                self.fail(
                    f"{name}: the players' entropy logged at resolution is not the letters' in the chain"
                )
            key = dice_key(seed, entropy) if "entropy" in resolved else seed
            self.rolls_of(name, key, step, step["orders_digest"])
        if "roll_log" in resolved:
            if resolved["roll_log"] != salted(sha(canonical(step["rolls"]).encode("utf-8")), salt):
                self.fail(f"{name}: its roll log is not the one committed to when it resolved")
        elif resolved.get("rolls", len(step["rolls"])) != len(step["rolls"]):
            self.fail(f"{name}: {len(step['rolls'])} rolls archived, {resolved['rolls']} logged")

    def chained_dice(
        self, name: str, step: dict[str, Any], resolved: dict[str, Any], seed: bytes, chained: dict[str, str]
    ) -> None:
        """Dice version 3: the server's element and the chained seats' reveals, nothing else."""
        entropy = reveals_digest(chained)
        if resolved.get("dice") != 3:
            self.fail(f"{name}: seats had dice chains, but the dice were not rolled with their reveals alone")
        elif resolved.get("entropy") != entropy:
            self.fail(f"{name}: the reveals its dice were rolled with are not the ones the chain logged")
        self.rolls_of(name, dice_key(seed, entropy), step, "")

    def rolls_of(self, name: str, key: bytes, step: dict[str, Any], digest: str) -> None:
        next_counter: dict[str, int] = {}
        for roll in step["rolls"]:
            self.rolls += 1
            if roll["count"] != len(roll["faces"]):
                # Refused underived: the dice give a roll as many faces as its count, and deriving
                # a count no face backs would cost time the archive's size does not bound.
                self.failed += 1
                self.fail(
                    f"{name}: roll {roll['label']} #{roll['counter']} logs {len(roll['faces'])} "
                    f"face(s) for a count of {roll['count']}: not derived"
                )
                continue
            where = (step["key"], digest, roll["label"])
            derived, after = faces(key, where, roll["sides"], roll["count"], roll["counter"])
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

    def before_resolution(self, step: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """(kind, payload) of the entries logged before the step's attempt resolved, in order."""
        found: list[tuple[str, dict[str, Any]]] = []
        for e in self.entries:
            p = e["payload"]
            if e["kind"] == "step-resolved" and (p.get("step"), p.get("attempt")) == (
                step["key"],
                step["attempt"],
            ):
                break
            found.append((e["kind"], p))
        return found

    def last_orders(self, step: dict[str, Any]) -> dict[str, str]:
        """Each seat's last order-set commitment logged for this attempt before it resolved."""
        last: dict[str, str] = {}
        for kind, p in self.before_resolution(step):
            if kind in ORDER_KINDS and (p.get("step"), p.get("attempt")) == (step["key"], step["attempt"]):
                last[str(p.get("seat"))] = str(p.get("commitment"))
        return last

    def last_seals(self, step: dict[str, Any]) -> dict[str, dict[str, str]]:
        """Each seat's last receipts ({label: receipt}) logged before this attempt resolved: its
        own SEAL letters while this attempt was open (a later attempt takes SEAL letters anew
        when the one before it was rolled back unopened), or the values carried over."""
        last: dict[str, dict[str, str]] = {}
        open_now = False
        for kind, p in self.before_resolution(step):
            if p.get("step") != step["key"]:
                continue
            if kind == "step-opened":
                open_now = p.get("attempt") == step["attempt"]
            elif kind == "sealed" and open_now:
                last[str(p["seat"])] = dict(p["receipts"])
            elif kind == "sealed-carried" and p.get("attempt") == step["attempt"]:
                last = {seat: dict(found) for seat, found in p["receipts"].items()}
        return last

    def order_sets(self, name: str, step: dict[str, Any]) -> None:
        """The dice used each seat's LAST order set logged before the deadline, and no other."""
        last = self.last_orders(step)
        for seat, salt in sorted(step.get("salts", {}).items()):
            lines = step["orders"].get(seat, [])
            commitment = salted(orders_digest({seat: lines}), bytes.fromhex(salt))
            if seat not in last:
                self.fail(f"{name}: the orders of {seat} are not the ones logged when they were accepted")
            elif last[seat] != commitment:
                self.fail(f"{name}: the orders of {seat} are not the last ones he sent before it resolved")
        for seat in sorted(set(last) - set(step.get("salts", {}))):
            self.fail(f"{name}: the last orders logged for {seat} are not among the orders the dice used")

    def sealed(self, name: str, step: dict[str, Any]) -> None:
        """Every sealed value and salt must give its receipt, that receipt must be the last one the
        chain logged for the seat before the step resolved, and every logged seal is opened."""
        last = self.last_seals(step)
        archived = step.get("sealed", {})
        for seat, values in sorted(archived.items()):
            for label, item in sorted(values.items()):
                try:
                    salt = bytes.fromhex(item["salt"])
                except ValueError:
                    salt = b""
                if sha(item["value"].encode("utf-8") + salt) != item["receipt"]:
                    self.fail(f"{name}: the sealed {label} of {seat} does not give its receipt")
                if last.get(seat, {}).get(label) != item["receipt"]:
                    self.fail(
                        f"{name}: the receipt for {seat}'s {label} is not the one logged when sealed "
                        "(the last before it resolved)"
                    )
                if item.get("line") is not None and item["line"] not in step["orders"].get(seat, []):
                    self.fail(f"{name}: the sealed {label} of {seat} is not among the orders the dice used")
        for seat, receipts in sorted(last.items()):
            for label in sorted(set(receipts) - set(archived.get(seat, {}))):
                self.fail(f"{name}: {seat} sealed a {label} (logged) that the archive never opens")
