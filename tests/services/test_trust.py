# SPDX-License-Identifier: GPL-3.0-or-later
"""Trust players can check for themselves (issue 14).

A rollback draws a fresh seed (the World in Flames attack with the revealed
seed no longer works), the set-up is committed before it is rolled, every
accepted letter adds the player's entropy, PREVIEW never shows the real dice
or a sealed value, and hidden content enters the chain only salted.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from mailbot.core.chain import entry_hash
from mailbot.core.dice import DiceStream, dice_key, order_digest, player_entropy
from mailbot.services.base import chainlog, dicechain, queries
from mailbot.services.play.games import GameSetup
from mailbot.store.game_tables import ChainRow, GameStatus, RollRow, StepRow, StepState
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import GM
from tests.services.test_games_by_mail import NORTH, SOUTH, _started

AXIS, ALLIES = "axis@players.test", "allies@players.test"


def _seeds(start: int = 1) -> Callable[[], bytes]:
    """Deterministic seeds, so that a test cannot pass or fail by the luck of the draw."""
    counter = itertools.count(start)
    return lambda: hashlib.sha256(f"seed {next(counter)}".encode()).digest()


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/t.db")
    harness.bot.games.draw_seed = _seeds()
    yield harness
    harness.bot.engine.dispose()


def _chain(h: Harness, game_id: int) -> list[ChainRow]:
    with Session(h.bot.engine) as session:
        rows = list(
            session.exec(select(ChainRow).where(ChainRow.game_id == game_id).order_by(col(ChainRow.position)))
        )
        for row in rows:
            session.expunge(row)
        return rows


def _rolls(h: Harness, step_id: int | None) -> list[dict[str, Any]]:
    with Session(h.bot.engine) as session:
        query = select(RollRow).where(RollRow.step_id == step_id).order_by(col(RollRow.position))
        return [dict(row.data) for row in session.exec(query)]


def _gm(h: Harness, game_id: int, tag: str) -> str:
    return f"[{tag}-{game_id} {h.game(game_id).gm_secret}] gm"


# -- the World in Flames rollback attack ------------------------------------------------------


def _wif(h: Harness) -> tuple[int, dict[str, str]]:
    setup = GameSetup(
        plugin="wif-turn-end",
        scenario="standard",
        title="WiF turn end",
        deadline="48h",
        timezone="UTC",
        gm_address=GM,
        options={"turns": 1},
    )
    with Session(h.bot.engine) as session, session.begin():
        game_id = int(h.bot.games.create(session, setup).id or 0)
    seats = {seat.name: seat for seat in (h.seat(game_id, "Axis"), h.seat(game_id, "Allies"))}
    h.invite(game_id, "Axis", AXIS)
    h.invite(game_id, "Allies", ALLIES)
    h.flush()
    return game_id, {name: f"[WI-{game_id} {seat.secret}]" for name, seat in seats.items()}


def _open(h: Harness, game_id: int) -> StepRow:
    return next(s for s in h.steps(game_id) if s.state is StepState.OPEN)


def test_wif_rollback_attack_the_old_seed_predicts_nothing(h: Harness) -> None:
    game_id, tags = _wif(h)
    first = _open(h, game_id)
    h.mail(AXIS, f"{tags['Axis']} orders", f"ORDERS {first.key}\nWEATHER 2\nEND\n")
    h.mail(ALLIES, f"{tags['Allies']} orders", f"ORDERS {first.key}\nWEATHER 2\nEND\n")
    resolved = h.tick(49 * 3600)
    # An open game mails the seed with the results: the Allies hold it.
    allies_report = next(m for m in to(resolved, ALLIES) if "resolved" in m["Subject"])
    found = re.search(r"Seed \(check it against the commitment\): ([0-9a-f]{64})", text(allies_report))
    assert found is not None
    old_seed = bytes.fromhex(found.group(1))
    old_rolls = _rolls(h, first.id)
    assert old_rolls, "the impulse rolls its dice"

    letters = h.mail("gm@example.test", _gm(h, game_id, "WI"), f"ROLLBACK {first.key} replay\n")
    reopened = _open(h, game_id)
    assert (reopened.key, reopened.attempt) == (first.key, 2)
    assert reopened.commitment != first.commitment
    assert hashlib.sha256(old_seed).hexdigest() != reopened.commitment
    # The new commitment reaches every seat before orders are taken again.
    for address in (AXIS, ALLIES):
        assert any(reopened.commitment in text(m) for m in to(letters, address))

    # The Allies' offline grinding: with the old seed they predict the dice of each wording.
    wordings = [["WEATHER 2"], ["WEATHER 1"], ["WEATHER 0"]]
    predicted = {}
    for wording in wordings:
        digest = order_digest({"Allies": wording, "Axis": ["WEATHER 2"]})
        stream = DiceStream(old_seed, digest, first.key, player_entropy([]))
        predicted[tuple(wording)] = stream
    h.mail(ALLIES, f"{tags['Allies']} orders", f"ORDERS {first.key}\nWEATHER 2\nNONCE pick me\nEND\n")
    h.mail("gm@example.test", _gm(h, game_id, "WI"), "FORCE replay\n")
    new_rolls = _rolls(h, reopened.id)
    assert new_rolls
    with Session(h.bot.engine) as session:
        step = session.get_one(StepRow, reopened.id)
        entropy = queries.step_entropy(session, step)[0]
        digest = step.orders_digest
    # Even given the players' entropy and the real orders digest, the old seed gives other dice.
    replay = DiceStream(old_seed, digest, first.key, entropy)
    guessed = [replay.roll(r["label"], r["sides"], r["count"]).faces for r in new_rolls]
    assert guessed != [tuple(r["faces"]) for r in new_rolls]
    # And the real dice come from the fresh seed, the entropy and the orders, as published.
    real = DiceStream(bytes.fromhex(step.seed), digest, first.key, entropy)
    assert [real.roll(r["label"], r["sides"], r["count"]).faces for r in new_rolls] == [
        tuple(r["faces"]) for r in new_rolls
    ]


def test_rollback_then_reprocess_uses_the_new_seed(h: Harness) -> None:
    """Replaces the old "same result" expectation: a rolled-back step never reuses its dice."""
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(49 * 3600)
    h.mail(GM, _gm(h, game_id, "DU"), "ROLLBACK T1.orders wrong dice table\n")
    attempts = [s for s in h.steps(game_id) if s.key == "T1.orders"]
    assert [s.attempt for s in attempts] == [1, 2]
    assert attempts[0].seed != attempts[1].seed and attempts[0].commitment != attempts[1].commitment
    opened = [
        r.payload for r in _chain(h, game_id) if r.kind == "step-opened" and r.payload["step"] == "T1.orders"
    ]
    assert [p["commitment"] for p in opened] == [attempts[0].commitment, attempts[1].commitment]


def test_a_rolled_back_sealed_step_keeps_the_values_as_opened(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(49 * 3600)
    bid = _open(h, game_id)
    assert bid.kind == "sealed"
    h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\n")
    h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
    h.tick(13 * 3600)
    assert all(s.state is not StepState.OPEN or s.key != bid.key for s in h.steps(game_id))
    letters = h.mail(GM, _gm(h, game_id, "DU"), f"ROLLBACK {bid.key} replay\n")
    again = _open(h, game_id)
    assert (again.key, again.attempt) == (bid.key, 2) and again.commitment != bid.commitment
    assert "sealed values stand" in text(to(letters, NORTH)[0])
    # South saw north's 2 at the opening: he may not answer it now, by SEAL or by an ORDERS block
    # (GM trial: "ORDERS T1.bid / SEAL bid 2 / END" replaced the opened BID 0).
    (refused,) = to(h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 3\n"), SOUTH)
    assert "opened before the rollback" in text(refused)
    for body in (f"ORDERS {bid.key}\nSEAL bid 3\nEND\n", f"ORDERS {bid.key}\nBID 3\nEND\n"):
        (refused,) = to(h.mail(SOUTH, f"{south_tag} bid", body), SOUTH)
        said = " ".join(text(refused).split())
        assert "opened before the rollback and stand as they were" in said, said
        assert "Orders accepted" not in said
    with Session(h.bot.engine) as session:
        held = queries.current_orders(session, int(again.id or 0))
        assert {seat: row.sealed["bid"]["value"] for seat, row in held.items()} == {
            "north": "2",
            "south": "1",
        }


def test_a_sealed_step_takes_no_orders_block_past_its_seal_box(h: Harness) -> None:
    """A sealed value goes through the box (receipt, the others told only that one came): an ORDERS
    block with the value would store it past both."""
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(49 * 3600)
    bid = _open(h, game_id)
    (refused,) = to(h.mail(NORTH, f"{north_tag} bid", f"ORDERS {bid.key}\nBID 2\nEND\n"), NORTH)
    said = " ".join(text(refused).split())
    assert f"{bid.title} takes sealed values, not orders: send SEAL <label> <value>" in said, said
    assert "(labels: bid)" in said and "Orders accepted" not in said
    with Session(h.bot.engine) as session:
        assert queries.current_orders(session, int(bid.id or 0)) == {}
    # A reply whose subject says orders, with the SEAL line in its text and a word of thanks
    # below it, is sealed as before: its loose lines are no orders block for a sealed step.
    (sealed,) = to(h.mail(NORTH, f"Re: {north_tag} orders", "SEAL bid 2\nThanks, and good luck\n"), NORTH)
    said = " ".join(text(sealed).split())
    assert "Receipt" in said and "takes sealed values" not in said and "No orders accepted" not in said, said


# -- set-up, entropy, preview -----------------------------------------------------------------


def test_set_up_is_committed_with_the_invitations_and_rolled_after_every_join(h: Harness) -> None:
    game_id = h.create()
    (setup,) = h.steps(game_id)
    assert setup.key == "setup" and setup.state is StepState.OPEN
    assert h.game(game_id).state == {}  # nothing rolled yet
    h.invite(game_id, "north", NORTH)
    (welcome,) = to(h.flush(), NORTH)
    assert setup.commitment in text(welcome) and setup.seed not in text(welcome)
    code = h.seat(game_id, "south").invite_code
    h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\nNONCE 8d3f sunrise\n")
    (setup,) = [s for s in h.steps(game_id) if s.key == "setup"]
    assert setup.state is StepState.RESOLVED and h.game(game_id).status is GameStatus.RUNNING
    kinds = [(r.kind, r.payload.get("step")) for r in _chain(h, game_id)]
    assert kinds.index(("step-opened", "setup")) < kinds.index(("entropy", "setup"))
    assert kinds.index(("entropy", "setup")) < kinds.index(("step-resolved", "setup"))
    (contribution,) = [r.payload for r in _chain(h, game_id) if r.kind == "entropy"]
    assert contribution["seat"] == "south" and contribution["nonce"] == "8d3f sunrise"
    assert contribution["message_id"].endswith("@players.test")


def test_every_accepted_letter_adds_entropy_that_keys_the_dice(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\nNONCE first\n")
    h.mail(NORTH, f"{north_tag} again", "NONCE second thoughts\n")  # a bare NONCE counts too
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nEND\n")
    h.tick(49 * 3600)
    chain = _chain(h, game_id)
    found = [
        (p["seat"], p["message_id"], p["nonce"])
        for p in (r.payload for r in chain if r.kind == "entropy")
        if p["step"] == "T1.orders"
    ]
    assert [(seat, nonce) for seat, _, nonce in found] == [
        ("north", "first"),
        ("north", "second thoughts"),
        ("south", ""),
    ]
    (resolved,) = [r.payload for r in chain if r.kind == "step-resolved" and r.payload["step"] == "T1.orders"]
    assert resolved["entropy"] == player_entropy(found) and resolved["contributions"] == 3
    step = next(s for s in h.steps(game_id) if s.key == "T1.orders")
    rolls = _rolls(h, step.id)
    stream = DiceStream(bytes.fromhex(step.seed), step.orders_digest, step.key, resolved["entropy"])
    assert [stream.roll(r["label"], r["sides"], r["count"]).faces for r in rolls] == [
        tuple(r["faces"]) for r in rolls
    ]
    assert dice_key(bytes.fromhex(step.seed), resolved["entropy"]) != bytes.fromhex(step.seed)


def test_preview_uses_throwaway_dice_and_never_opens_a_seal(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, tags = _wif(h)
    step = _open(h, game_id)
    h.mail(AXIS, f"{tags['Axis']} orders", f"ORDERS {step.key}\nWEATHER 2\nEND\n")
    used: list[bytes | None] = []
    real_compute = h.bot.turns.compute

    def spy(session: Session, game: Any, row: StepRow, *, seed: bytes | None = None) -> Any:
        used.append(seed)
        return real_compute(session, game, row, seed=seed)

    monkeypatch.setattr(h.bot.turns, "compute", spy)
    (answer,) = h.mail("gm@example.test", _gm(h, game_id, "WI"), "PREVIEW\n")
    assert "throwaway seed" in text(answer)
    (seed,) = used
    assert seed is not None and seed.hex() != step.seed
    with Session(h.bot.engine) as session:
        game = h.game(game_id)
        row = session.get_one(StepRow, step.id)  # with its snapshot (``h.steps`` leaves it out)
        real = real_compute(session, game, row)
        shown = real_compute(session, game, row, seed=seed)
        inputs = dicechain.step_dice(session, row, lambda: queries.step_entropy(session, row))
    # Each side's dice are those of its own key, told apart by the stream itself: the step rolls
    # 2d10 once, whose faces two keys give alike once in a hundred.
    assert real.rolls and len(real.rolls) == len(shown.rolls)
    for key, rolled in ((bytes.fromhex(step.seed), real), (seed, shown)):
        stream = DiceStream(key, inputs.digest_for_dice(rolled.digest), step.key, rolled.entropy[0])
        assert [list(stream.roll(r["label"], r["sides"], r["count"]).faces) for r in rolled.rolls] == [
            r["faces"] for r in rolled.rolls
        ]


def test_preview_of_a_sealed_step_shows_no_value(h: Harness) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nEND\n")
    h.tick(49 * 3600)
    h.mail(NORTH, f"{north_tag} bid", "SEAL bid 3\n")
    (sealed,) = h.mail(GM, _gm(h, game_id, "DU"), "PREVIEW\n")
    assert "sealed until the opening" in text(sealed) and "bid 3" not in text(sealed).lower()


# -- salted commitments -----------------------------------------------------------------------

# Salted commitments, plus what differs between any two letters whatever their orders: the
# Message-ID (and the "letter" entry's hash of the whole raw letter, Message-ID included).
SALTED_FIELDS = ("commitment", "orders", "roll_log", "entropy", "message_id", "message", "parts")


def _world(tmp_path: Path, name: str, north_attack: str) -> tuple[list[ChainRow], Harness]:
    h = Harness(f"sqlite:///{tmp_path}/{name}.db")
    h.bot.games.draw_seed = _seeds()
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", f"ORDERS\nATTACK {north_attack}\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(49 * 3600)
    chain = _chain(h, game_id)
    h.bot.engine.dispose()
    return chain, h


def _masked(payload: Any) -> Any:
    if isinstance(payload, dict):
        return {
            k: ("*" if k != "parts" else sorted(v)) if k in SALTED_FIELDS else _masked(v)
            for k, v in payload.items()
        }
    return payload


def test_low_entropy_orders_cannot_be_tested_against_chain_heads(tmp_path: Path) -> None:
    """Two worlds differing only in north's ATTACK 1 / ATTACK 2: south cannot tell them apart."""
    one, _ = _world(tmp_path, "one", "1")
    two, _ = _world(tmp_path, "two", "2")
    assert one[-1].hash != two[-1].hash  # the chain does commit to the orders...
    # ...but the entries differ only in salted commitments (and the letters' Message-IDs):
    assert [(r.kind, _masked(r.payload)) for r in one] == [(r.kind, _masked(r.payload)) for r in two]
    # South's guessing attack: every wording north might have sent, hashed as the old chain did.
    guesses = [[f"ATTACK {a}", f"DEFEND {d}"] for a in range(4) for d in range(4)]
    bare = {order_digest({"north": g}) for g in guesses}
    bare |= {order_digest({"north": g, "south": ["ATTACK 2", "DEFEND 1"]}) for g in guesses}
    for chain in (one, two):
        flat = {str(v) for r in chain for v in r.payload.values()}
        assert not bare & flat, "a bare orders digest in the chain lets a seat test guesses"
        for row in chain:  # recomputing any entry with a guessed digest in place never fits
            if row.kind == "orders" and row.payload["seat"] == "north":
                for guess in bare:
                    tried = {**row.payload, "commitment": guess}
                    assert entry_hash(row.position, row.kind, tried, row.prev_hash) != row.hash


def test_archive_holds_no_seat_secret(h: Harness, tmp_path: Path) -> None:
    from mailbot.services.archive.archive import export

    game_id, _, _ = _started(h)
    secrets = [h.seat(game_id, name).secret for name in ("north", "south")]
    with Session(h.bot.engine) as session:
        export(session, game_id, tmp_path / "arch")
    dumped = (tmp_path / "arch" / "game.json").read_text()
    assert all(secret not in dumped for secret in secrets)
    assert h.game(game_id).gm_secret not in dumped


def test_the_game_over_letter_states_the_final_chain_head(h: Harness) -> None:
    from tests.services.test_archive import _play_to_the_end

    game_id = _play_to_the_end(h)
    h.flush()
    with Session(h.bot.engine) as session:
        head, count = chainlog.head(session, game_id), len(chainlog.entries(session, game_id))
    closing = [m for m in h.sink.sent if b"the game log is closed" in m.raw]
    assert {m.recipient for m in closing} == {NORTH, SOUTH}
    from tests.services.game_helpers import parse

    for sent in closing:
        body = text(parse(sent.raw))
        assert f"Final chain head: {head}" in body and f"Entries: {count}" in body
