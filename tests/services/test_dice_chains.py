# SPDX-License-Identifier: GPL-3.0-or-later
"""Dice nobody steers (issue 31, item 1): the server's seed chain and the seats' reveal chains.

Every game is played by mail through the bot; each attack is the cheating GM's (he runs the
bot, its database and its mailbox, and holds every seat's secret) or a player's in league with
him, and each is shown impossible or flagged by the victim's own ``verify.py``.
"""

from __future__ import annotations

import functools
import hashlib
import mailbox
import subprocess
import sys
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from mailbot.core import hashchain
from mailbot.core.dice import DiceStream
from mailbot.services.base import chainlog, dicechain
from mailbot.services.play import setupdice
from mailbot.store.game_tables import ChainRow, GameStatus, RollRow, ServerChain, StepRow, StepState
from mailbot.store.models import Inbound
from mailbot.verifier.rules import seat_root
from tests.services.game_helpers import Harness, parse, tag_of, text, to
from tests.services.helpers import GM, letter
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.verifier.test_verify_tampering import _export, _letters, _run, _summary_counts_every_problem

PHRASES = {"north": "north keeps these four words", "south": "south has six words of her own"}
GRINDS = 64  # the candidates a cheat tries per step


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/d.db")
    yield harness
    harness.bot.engine.dispose()


@functools.cache
def _root(game_id: int, seat: str) -> bytes:
    return seat_root(PHRASES[seat], str(game_id), seat)


def _chain_line(game_id: int, seat: str) -> str:
    return f"CHAIN {hashchain.anchor(_root(game_id, seat))}"


@functools.cache
def _kept(game_id: int, seat: str) -> tuple[bytes, ...]:
    """The seat chain's checkpoints, as a player's client may keep them (a round a hundred hashes away)."""
    return tuple(hashchain.checkpoints(_root(game_id, seat)))


def _value(game_id: int, seat: str, k: int) -> str:
    return hashchain.element_from(_kept(game_id, seat), k).hex()


def _started(h: Harness, *, north: bool = True, south: bool = True) -> tuple[int, str, str]:
    """A duel: north invited by the GM sends his CHAIN, south JOINs with hers in the same letter."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    if north:
        answer = h.mail(NORTH, f"{north_tag} chain", _chain_line(game_id, "north") + "\n")
        assert "Your anchor" in text(to(answer, NORTH)[-1])
    code = h.seat(game_id, "south").invite_code
    # South joins last: her anchor closes the set-up's, so her round-1 reveal may come along.
    joining = f"JOIN {game_id} south {code}\n" + (
        f"{_chain_line(game_id, 'south')}\nREVEAL 1 {_value(game_id, 'south', 1)}\n" if south else ""
    )
    replies = h.mail(SOUTH, "joining", joining)
    welcome = next(m for m in replies if m["To"] == SOUTH and "Welcome" in m["Subject"])
    if north:  # the set-up waits for north's round-1 reveal, and asks for it
        assert h.game(game_id).status is GameStatus.SETUP
        asked = next(m for m in to(replies, NORTH) if "set-up dice" in m["Subject"])
        assert f"verify.py reveal {game_id} north 1" in text(asked)
        h.mail(NORTH, f"{north_tag} reveal", f"REVEAL 1 {_value(game_id, 'north', 1)}\n")
    assert h.game(game_id).status is GameStatus.RUNNING
    return game_id, north_tag, tag_of(welcome)


def _all(h: Harness) -> list[EmailMessage]:
    return [parse(sent.raw) for sent in h.sink.sent]


def _open(h: Harness, game_id: int) -> StepRow:
    return next(s for s in h.steps(game_id) if s.state is StepState.OPEN)


def _round(h: Harness, step: StepRow) -> int:
    with Session(h.bot.engine) as session:
        found = dicechain.Links.read(session, step.game_id).opened(step)[1]
    assert found is not None
    return found


def _chain(h: Harness, game_id: int) -> list[ChainRow]:
    with Session(h.bot.engine) as session:
        rows = list(
            session.exec(select(ChainRow).where(ChainRow.game_id == game_id).order_by(col(ChainRow.position)))
        )
        for row in rows:
            session.expunge(row)
        return rows


def _resolved(h: Harness, step: StepRow) -> dict[str, Any]:
    return next(
        r.payload
        for r in _chain(h, step.game_id)
        if r.kind == "step-resolved" and (r.payload["step"], r.payload["attempt"]) == (step.key, step.attempt)
    )


def _faces(h: Harness, step: StepRow) -> list[tuple[int, ...]]:
    with Session(h.bot.engine) as session:
        query = select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position))
        return [tuple(row.data["faces"]) for row in session.exec(query)]


def _predicted(h: Harness, step: StepRow, reveals: dict[str, str]) -> list[tuple[int, ...]]:
    """The faces the step's seed and these reveals give, whatever else the letters said."""
    with Session(h.bot.engine) as session:
        seed = bytes.fromhex(session.get_one(StepRow, step.id).seed)
        rows = session.exec(select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position)))
        wanted = [(row.data["label"], row.data["sides"], row.data["count"]) for row in rows]
    stream = DiceStream(seed, "", step.key, hashchain.reveals_digest(reveals))
    return [stream.roll(label, sides, count).faces for label, sides, count in wanted]


Send = Callable[[StepRow, int, str, str], None]


def _honest(h: Harness, game_id: int) -> Send:
    def send(step: StepRow, k: int, north_tag: str, south_tag: str) -> None:
        north, south = (
            f"REVEAL {k} {_value(game_id, 'north', k)}",
            f"REVEAL {k} {_value(game_id, 'south', k)}",
        )
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", f"SEAL bid 2\n{north}\n")
            h.mail(SOUTH, f"{south_tag} bid", f"SEAL bid 1\n{south}\n")
        else:
            h.mail(NORTH, f"{north_tag} orders", f"ORDERS\nATTACK 2\nDEFEND 1\nEND\n{north}\n")
            h.mail(SOUTH, f"{south_tag} orders", f"ORDERS\nATTACK 1\nDEFEND 2\nEND\n{south}\n")

    return send


def _play(h: Harness, tags: tuple[int, str, str], send: Send | None = None, after: Send | None = None) -> int:
    game_id, north_tag, south_tag = tags
    send = send or _honest(h, game_id)
    for _ in range(20):
        if h.game(game_id).status is GameStatus.FINISHED:
            return game_id
        step = _open(h, game_id)
        k = _round(h, step)
        send(step, k, north_tag, south_tag)
        h.tick(2 * 24 * 3600)
        if after is not None:
            after(step, k, north_tag, south_tag)
    raise AssertionError("the duel did not end")


def _check(h: Harness, game_id: int, tmp_path: Path, *, not_sent: frozenset[str] = frozenset()) -> str:
    """North's verify with his received letters and his Sent folder (never ``not_sent``)."""
    _export(h, game_id, tmp_path / "arch")
    received = _letters(h, NORTH, tmp_path / "in.mbox")
    box = mailbox.mbox(tmp_path / "sent.mbox")
    with Session(h.bot.engine) as session:
        for row in session.exec(select(Inbound).where(Inbound.sender == NORTH).order_by(col(Inbound.id))):
            if row.message_id not in not_sent:
                box.add(row.raw)
    box.flush()
    box.close()
    done = _run(tmp_path / "arch", "--letters", str(received), "--sent", str(tmp_path / "sent.mbox"))
    _summary_counts_every_problem(done.stdout)
    assert done.returncode == (1 if "FAILED" in done.stdout else 0), done.stdout + done.stderr
    return done.stdout


def _failed(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("FAILED")]


# -- the honest game ------------------------------------------------------------------------


def test_an_honest_chained_game_is_rolled_with_the_reveals_alone_and_checks_clean(
    h: Harness, tmp_path: Path
) -> None:
    tags = _started(h)
    game_id = tags[0]
    first = _open(h, game_id)
    # Both anchors were logged before the first step opened: its dice are the reveals'.
    kinds = [r.kind for r in _chain(h, game_id)]
    assert kinds.index("dice-chain") < kinds.index("game-started")
    assert kinds.count("dice-chain") == 2
    report = next(m for m in to(_all(h), NORTH) if "Now open" in text(m))
    assert f"Dice round: {_round(h, first)}." in text(report)
    _play(h, tags)
    rolled = 0
    for step in h.steps(game_id)[1:]:
        resolved = _resolved(h, step)
        k = _round(h, step)
        reveals = {seat: _value(game_id, seat, k) for seat in ("north", "south")}
        assert resolved["dice"] == 3 and resolved["withheld"] == [], resolved
        assert resolved["entropy"] == hashchain.reveals_digest(reveals)
        assert _faces(h, step) == _predicted(h, step, reveals)
        rolled += len(_faces(h, step))
    assert rolled, "the duel rolls dice"
    out = _check(h, game_id, tmp_path)
    assert _failed(out) == [], out


def test_the_step_seeds_are_the_server_chain_committed_before_any_letter(h: Harness) -> None:
    tags = _started(h)
    game_id = _play(h, tags)
    chain = _chain(h, game_id)
    anchor = chain[0].payload["server_anchor"]
    with Session(h.bot.engine) as session:
        root = bytes.fromhex(session.get_one(ServerChain, game_id).root)
    assert anchor == hashchain.anchor(root)
    # Every welcome letter carried the anchor, before any letter counted.
    welcomes = [m for m in _all(h) if "Welcome" in m["Subject"]]
    assert len(welcomes) == 2 and all("Seed chain anchor (every step's" in text(m) for m in welcomes)
    assert all(anchor in " ".join(text(m).split()) for m in welcomes)
    for k, step in enumerate(h.steps(game_id), 1):
        seed = bytes.fromhex(step.seed)
        assert _round(h, step) == k
        assert seed == hashchain.element(root, k)
        assert hashchain.hashed(seed, k).hex() == anchor
        # The commitment is a tagged hash: SHA-256 of the seed is the seed before, kept secret.
        assert step.commitment == hashchain.seed_commitment(seed) != hashlib.sha256(seed).hexdigest()


# -- the GM alone ---------------------------------------------------------------------------


def test_a_gm_forging_reveals_with_grinding_gets_none_accepted(h: Harness) -> None:
    """Attack (a) again: with north's secret the GM writes REVEAL letters in his name, 64 guesses
    at a value that would suit him; none links to north's anchor, so none counts."""
    tags = _started(h)
    game_id, north_tag, _ = tags
    step = _open(h, game_id)
    k = _round(h, step)
    for n in range(GRINDS):
        guess = hashlib.sha256(f"grind {n}".encode()).hexdigest()
        h.clock.advance(450)  # refused letters get ten answers an hour: see each one
        answer = h.mail(NORTH, f"{north_tag} reveal", f"REVEAL {k} {guess}\n")
        assert "does not link to your chain's anchor" in text(to(answer, NORTH)[-1])
    assert not [r for r in _chain(h, game_id) if r.kind == "reveal" and r.payload["step"] != "setup"]
    # An old value (the round before) or the right value for another round does not link either.
    answer = h.mail(NORTH, f"{north_tag} reveal", f"REVEAL {k} {_value(game_id, 'north', k - 1)}\n")
    assert "does not link" in text(to(answer, NORTH)[-1])
    answer = h.mail(NORTH, f"{north_tag} reveal", f"REVEAL {k + 1} {_value(game_id, 'north', k + 1)}\n")
    assert f"the open step is round {k}" in text(to(answer, NORTH)[-1])


def test_a_forged_nonce_letter_with_grinding_changes_no_die_and_is_flagged(
    h: Harness, tmp_path: Path
) -> None:
    """Attack (a) of the issue: after both seats sent, the GM grinds 64 NONCE letters in north's
    name; with dice chains the NONCE does not enter the dice (every candidate predicts the same
    faces), and north's Sent folder shows the letter he never wrote."""
    tags = _started(h)
    game_id = tags[0]
    forged: set[str] = set()

    def forge(step: StepRow, k: int, north_tag: str, south_tag: str) -> None:
        _honest(h, game_id)(step, k, north_tag, south_tag)
        if step.turn == 1 and step.kind != "sealed" and not forged:
            mid = "forged-grind@players.test"
            raw = letter(sender=NORTH, subject=f"{north_tag} nonce", body="NONCE grind-17\n", message_id=mid)
            h.bot.inject(raw)
            h.bot.processor.process_pending()
            h.flush()
            forged.add(mid)

    _play(h, tags, forge)
    assert forged
    step = next(s for s in h.steps(game_id) if s.turn == 1 and s.kind != "sealed" and s.key != "setup")
    k = _round(h, step)
    reveals = {seat: _value(game_id, seat, k) for seat in ("north", "south")}
    assert any(r.kind == "entropy" and r.payload["nonce"] == "grind-17" for r in _chain(h, game_id))
    # Whatever the 64 candidate nonces, the dice are the seed's and the reveals', as rolled.
    assert _faces(h, step) == _predicted(h, step, reveals)
    out = _check(h, game_id, tmp_path, not_sent=frozenset(forged))
    assert _failed(out) == [
        f"FAILED: the chain counts a letter for north at {step.key} that you did not send "
        "(Message-ID forged-grind@players.test): forged in your name"
    ], out


def test_a_made_up_reveal_written_into_the_chain_is_flagged(h: Harness, tmp_path: Path) -> None:
    """The GM skips the mail and writes a reveal for north into his own database, before the
    step resolves: the bot rolls with it, and north's verify says the value is made up."""
    tags = _started(h)
    game_id = tags[0]
    done: list[str] = []

    def cheat(step: StepRow, k: int, north_tag: str, south_tag: str) -> None:
        if done:
            _honest(h, game_id)(step, k, north_tag, south_tag)
            return
        h.mail(
            SOUTH, f"{south_tag} orders", f"ORDERS\nATTACK 1\nEND\nREVEAL {k} {_value(game_id, 'south', k)}\n"
        )
        made_up = hashlib.sha256(b"the GM's pick").hexdigest()
        payload = {"step": step.key, "attempt": step.attempt, "round": k, "seat": "north", "value": made_up}
        with Session(h.bot.engine) as session, session.begin():
            chainlog.append(session, game_id, "reveal", payload | {"message_id": ""}, h.clock.now)
        done.append(step.key)

    _play(h, tags, cheat)
    out = _check(h, game_id, tmp_path)
    assert any("the REVEAL of north at" in line and "made up" in line for line in _failed(out)), out


def test_a_gm_drawing_a_step_seed_outside_the_chain_is_flagged(
    h: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Picking a seed: the GM's bot opens one step with a seed of his choice (its commitment
    published as usual); the seed chain no longer links, and verify says so."""
    tags = _started(h)
    real = dicechain.next_seed
    picked = hashlib.sha256(b"a seed the GM likes").digest()

    def pick(session: Session, game_id: int, draw: Callable[[], bytes]) -> tuple[bytes, int | None]:
        seed, k = real(session, game_id, draw)
        return (picked, k) if k == 3 else (seed, k)

    monkeypatch.setattr(dicechain, "next_seed", pick)
    game_id = _play(h, tags)
    out = _check(h, game_id, tmp_path)
    assert any("its seed is not round 3 of the seed chain the game began" in line for line in _failed(out)), (
        out
    )


def test_a_gm_skipping_a_chain_element_is_flagged(
    h: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Choosing among the chain's elements: the GM skips round 3 for round 4 (a seed he knows
    and likes better); the rounds have a gap, and verify says so."""
    tags = _started(h)
    real = dicechain.next_seed

    def skip(session: Session, game_id: int, draw: Callable[[], bytes]) -> tuple[bytes, int | None]:
        seed, k = real(session, game_id, draw)
        return real(session, game_id, draw) if k == 3 else (seed, k)

    monkeypatch.setattr(dicechain, "next_seed", skip)
    game_id = _play(h, tags)
    out = _check(h, game_id, tmp_path)
    assert any("opened as round 4 of the seed chain, not 3" in line for line in _failed(out)), out


def test_a_rollback_takes_the_next_element_of_the_chain(h: Harness, tmp_path: Path) -> None:
    tags = _started(h)
    game_id = tags[0]
    rolled: list[StepRow] = []

    def roll_back(step: StepRow, k: int, north_tag: str, south_tag: str) -> None:
        if rolled or step.kind == "sealed" or step.turn != 1:
            return
        rolled.append(step)
        gm_tag = f"[DU-{game_id} {h.game(game_id).gm_secret}] gm"
        letters = h.mail(GM, gm_tag, f"ROLLBACK {step.key} replay\n")
        reopened = _open(h, game_id)
        assert (reopened.key, reopened.attempt) == (step.key, 2)
        assert _round(h, reopened) == k + 2  # the step after it had opened as round k + 1
        # The GM cannot pick the new seed: it is the element under the last one handed out.
        assert hashchain.seed_commitment(bytes.fromhex(reopened.seed)) == reopened.commitment
        assert hashlib.sha256(bytes.fromhex(reopened.seed)).hexdigest() == h.steps(game_id)[-2].seed
        assert any(f"round {k + 2} of the seed chain" in text(m) for m in to(letters, NORTH))

    _play(h, tags, after=roll_back)
    assert rolled
    out = _check(h, game_id, tmp_path)
    assert _failed(out) == [], out


# -- the GM with one player -----------------------------------------------------------------


def test_a_colluding_last_sender_cannot_steer_a_die(h: Harness, tmp_path: Path) -> None:
    """Attack (b): south writes last and the GM tells her everything (the seed, north's reveal).
    Every wording of her orders and every NONCE she could send gives the same dice: they were
    fixed when the anchors were; her one choice is to withhold her reveal, which shows."""
    tags = _started(h)
    game_id = tags[0]

    def collude(step: StepRow, k: int, north_tag: str, south_tag: str) -> None:
        north = f"REVEAL {k} {_value(game_id, 'north', k)}"
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", f"SEAL bid 2\n{north}\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
            return
        h.mail(NORTH, f"{north_tag} orders", f"ORDERS\nATTACK 2\nDEFEND 1\nEND\n{north}\n")
        # The GM shows south what any letter of hers would roll: the outcome knows no wording.
        wordings = [f"ORDERS\nATTACK {n % 3}\nDEFEND {(n + 1) % 3}\nEND\nNONCE try-{n}\n" for n in range(4)]
        for body in wordings:
            h.mail(SOUTH, f"{south_tag} orders", body)

    _play(h, tags, collude)
    for step in h.steps(game_id)[1:]:
        k = _round(h, step)
        resolved = _resolved(h, step)
        north_only = {"north": _value(game_id, "north", k), "south": ""}
        assert resolved["withheld"] == ["south"]
        assert resolved["entropy"] == hashchain.reveals_digest(north_only)
        assert _faces(h, step) == _predicted(h, step, north_only)
        # The other outcome she could have had: with her reveal. Two outcomes, no more.
        both = north_only | {"south": _value(game_id, "south", k)}
        assert hashchain.reveals_digest(both) != resolved["entropy"]
    out = _check(h, game_id, tmp_path)
    assert _failed(out) == [], out


def test_every_report_says_what_say_the_seat_has_in_the_dice(h: Harness) -> None:
    game_id, north_tag, _ = _started(h, south=False)
    step = _open(h, game_id)
    k = _round(h, step)
    opening = [m for m in _all(h) if "Now open" in text(m)]
    north = " ".join(text(next(m for m in opening if m["To"] == NORTH)).split())
    south = " ".join(text(next(m for m in opening if m["To"] == SOUTH)).split())
    assert f"Dice round: {k}." in north and f"verify.py reveal {game_id} north {k}" in north
    assert "Your seat has no dice chain" in south and "your letters do not count" in south
    answer = h.mail(NORTH, f"{north_tag} reveal", f"REVEAL {k} {_value(game_id, 'north', k)}\n")
    assert "counts for the dice" in text(to(answer, NORTH)[-1])
    again = text(
        to(h.mail(NORTH, f"{north_tag} reveal", f"REVEAL {k} {_value(game_id, 'north', k)}\n"), NORTH)[-1]
    )
    assert "counts for the dice" in again  # the same value again: it stands, logged once
    assert len([r for r in _chain(h, game_id) if r.kind == "reveal" and r.payload["step"] == step.key]) == 1


def test_a_game_with_no_chain_rolls_as_before(h: Harness, tmp_path: Path) -> None:
    tags = _started(h, north=False, south=False)
    game_id = tags[0]
    # Every seat is told plainly that the GM can know these dice, and how to have a say.
    opening = [m for m in _all(h) if "Now open" in text(m)]
    assert len(opening) == 2
    for letter_ in opening:
        said = " ".join(text(letter_).split())
        assert "he can know the dice before the step is rolled" in said, said
        assert f"python3 verify.py chain {game_id} " in said

    def plain(step: StepRow, k: int, north_tag: str, south_tag: str) -> None:
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
        else:
            h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
            h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")

    _play(h, tags, plain)
    assert all("dice" not in _resolved(h, step) for step in h.steps(game_id))
    out = _check(h, game_id, tmp_path)
    assert _failed(out) == [], out


def test_a_forged_chain_line_is_flagged_by_the_victims_sent_folder(h: Harness, tmp_path: Path) -> None:
    """The GM sends a CHAIN of his own in north's name before north's: the seat's chain is the
    GM's (he could reveal or withhold for it), but north's verify shows the letter he never sent."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    mid = "forged-chain@players.test"
    fake = hashchain.anchor(hashlib.sha256(b"the GM's own chain").digest())
    h.bot.inject(letter(sender=NORTH, subject=f"{north_tag} chain", body=f"CHAIN {fake}\n", message_id=mid))
    h.bot.processor.process_pending()
    h.flush()
    answer = h.mail(NORTH, f"{north_tag} chain", _chain_line(game_id, "north") + "\n")
    assert "your dice chain is set" in text(to(answer, NORTH)[-1])
    code = h.seat(game_id, "south").invite_code
    replies = h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n{_chain_line(game_id, 'south')}\n")
    south_tag = tag_of(next(m for m in replies if m["To"] == SOUTH and "Welcome" in m["Subject"]))
    _play(h, (game_id, north_tag, south_tag))
    out = _check(h, game_id, tmp_path, not_sent=frozenset({mid}))
    assert (
        "FAILED: the chain counts a letter for north at joining that you did not send "
        f"(Message-ID {mid}): forged in your name"
    ) in _failed(out), out


def test_a_dropped_reveal_letter_is_flagged(h: Harness, tmp_path: Path) -> None:
    """Withholding for north: the GM drops north's letter before intake (its orders and reveal);
    north's Sent folder holds it, and verify says it was dropped."""
    tags = _started(h)
    game_id = _play(h, tags)
    dropped = EmailMessage()
    dropped["From"], dropped["Subject"] = NORTH, f"{tags[1]} orders"
    dropped["Date"] = "Sun, 22 Nov 2026 10:42:00 +0100"
    dropped["Message-ID"] = "<dropped-reveal@players.test>"
    dropped.set_content(f"REVEAL 2 {_value(game_id, 'north', 2)}\n")
    _export(h, game_id, tmp_path / "arch")
    received = _letters(h, NORTH, tmp_path / "in.mbox")
    box = mailbox.mbox(tmp_path / "sent.mbox")
    box.add(dropped.as_bytes())
    with Session(h.bot.engine) as session:
        for row in session.exec(select(Inbound).where(Inbound.sender == NORTH)):
            box.add(row.raw)
    box.flush()
    box.close()
    done = _run(tmp_path / "arch", "--letters", str(received), "--sent", str(tmp_path / "sent.mbox"))
    assert "is not in the chain and was never answered: dropped" in done.stdout, done.stdout


# -- the player's tool ----------------------------------------------------------------------


def test_verify_prints_the_chain_and_reveal_lines_from_the_passphrase(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "mailbot" / "verify_archive.py"

    def run(*args: str, phrase: str = PHRASES["north"]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), *args],
            input=phrase + "\n",
            capture_output=True,
            text=True,
            check=False,
        )

    assert run("chain", "7", "north").stdout.strip() == _chain_line(7, "north")
    assert run("reveal", "7", "north", "5").stdout.strip() == f"REVEAL 5 {_value(7, 'north', 5)}"
    assert run("reveal", "7", "North", "5").stdout.strip() == f"REVEAL 5 {_value(7, 'north', 5)}"
    short = run("chain", "7", "north", phrase="short")
    assert short.returncode == 2 and "at least 12" in short.stderr
    assert run("reveal", "--help").returncode == 0


def test_the_anchor_in_the_welcome_is_the_chains_top_with_or_without_checkpoints(h: Harness) -> None:
    """``anchor_of`` reads the last checkpoint; a chain stored without them is hashed up from its root."""
    game_id = h.create()
    with Session(h.bot.engine) as session, session.begin():
        chain = session.get_one(ServerChain, game_id)
        long_way = hashchain.anchor(bytes.fromhex(chain.root), chain.length)
        assert dicechain.anchor_of(session, game_id) == long_way
        welcome = "\n".join(setupdice.welcome_lines(session, h.game(game_id)))
        assert f"Seed chain anchor (every step's seed hashes to it, round by round): {long_way}" in welcome
        chain.checkpoints = []
    with Session(h.bot.engine) as session:
        assert dicechain.anchor_of(session, game_id) == long_way
