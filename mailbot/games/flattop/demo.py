# SPDX-License-Identifier: GPL-3.0-or-later
"""A scripted Flat Top player for the by-mail demo (the full coral-sea scenario).

:func:`flattop_orders` reads the side's own letter (the text part of the package's
``templates/report.txt.j2``, as mail brings it: wrapped at 72 columns, CRLF line
ends) and answers with lines in the normalised syntax of
:mod:`mailbot.games.flattop.orders.parse` and :mod:`mailbot.games.flattop.orders.combat`.
It knows only what a player knows: its own units, its contacts, the storms and
winds printed in the report, the factors printed on its own counters
(``demo_flying.CARRIERS``, ``demo_flying.PLANES``) and its staff's plan: where its task forces steam
and where the enemy can be (:mod:`mailbot.games.flattop.demo_plans`). Every carrier TF
searches, strikes and readies on its own; one that launches holds its hex that turn.

How it plays, as a careful carrier admiral would:

- readying: every plane in the Readying box goes to the Ready box as the
  Readying Factor allows, bombers armed (GP, AP, TORPEDO), fighters as CAP;
- search: pairs of planes (Allied fighters: the dive bombers are kept for the
  strikes) fly to the newest ships contact and round the hexes
  next to it, or with no contact to the sector and upwind of it (carriers steam
  into the wind to fly, standard 6.10); one pair keeps a contact, two look
  for the enemy; each flies home while its range allows. With a staff plan only a
  carrier contact holds them: a base's ships (Tulagi) are struck, and the searchers
  look on for the carriers where the plan expects them (:func:`scouted`);
- strike: when a ships contact (carriers first) is within reach of the armed
  plane types in the Ready box (at least :data:`MIN_STRIKE` factors in all;
  dive and torpedo bombers go together, the torpedo AF first), and the
  strike can be home before nightfall, it takes off (a normal launch, AF21 and
  up so it never clashes with a searcher) and flies to the contact as an armed
  search with ``IF SHIPS ATTACK``, so a target that moved a hex is still found;
  afterwards it flies home;
- the strike step (``T<n>.strike``): every AF that declared an attack is aimed
  at one ship named in the precise makeup (seed 003, 15 LI 1): the one
  "burning and listing heavily", else a smoking one, else the best type
  present (hits spread over ships sink none), never a ship "dead in the
  water" while another is left (LI 4: a doomed ship may only be slow to sink);
- the losses step (``T<n>.losses``): the enemy types present are ranked
  bombers first (15 LI 3), since they are what threatens the carriers;
- storms (standard 6.6, 6.8): no plane flies into one, so nothing takes off
  from carriers caught in a storm, and planes fly home around storms; while
  their carriers sit in one they wait, and divert to another carrier or a land
  base when they must land and can still reach it;
- nightfall: nothing takes off, everything aloft flies home;
- the staff's review (full Coral Sea only): from the third day's nightfall letter on, a
  side that has lost more carriers (sunk, or no launch factor left) than its strikes left
  dead in the water or saw sink sends CONCEDE instead of orders
  (:func:`demo_review.concedes`, reading all its letters): the carrier battle is lost, and the
  remaining days could only bring it more losses. So the demo's game ends in about
  three days instead of five.

The parts, beside this module: reading the letter (``demo_reading``), the staff's plan
(``demo_plans``), the counters and the flying (``demo_flying``), the hour's searches,
strikes and readying (``demo_launches``), the strike and losses steps (``demo_targets``),
the nightfall review (``demo_review``) and the other steps: surface battles, submarines,
survivors (``demo_steps``). This module answers a letter with them.

Launches begin their path with the hex one step into the wind: a carrier TF that
launches or lands more than its Minimum LF turns into the wind (standard 6.10),
and from either hex that path is legal.

Pure: no I/O; the only state is the letters' text and the step key.
"""

from __future__ import annotations

import re

from mailbot.core.demo import DemoScript, orders
from mailbot.games.flattop.demo_launches import SEARCH_PLANE, carrier_orders, flight_orders, target_for
from mailbot.games.flattop.demo_plans import plot_orders, plots
from mailbot.games.flattop.demo_reading import Report, read_report, unix_lines
from mailbot.games.flattop.demo_review import concedes
from mailbot.games.flattop.demo_steps import answer_step
from mailbot.games.flattop.demo_targets import rank_orders, strike_orders

DECEPTION = {"allied": "DECEPTION RANDOM", "japanese": "DECEPTION MAXIMAL"}


def turn_orders(seat: str, report: Report) -> list[str]:
    """A game hour's orders (see the module docstring for the plan)."""
    carriers = [tf for _, tf in sorted(report.tfs.items()) if tf.carriers]
    first = carriers[0] if carriers else None
    target = target_for(report, first.hex) if first is not None else None
    flights = flight_orders(seat, report, target)
    numbers, launching, decks = set(report.air), set(), []
    for tf in carriers:
        decks += (deck := carrier_orders(seat, report, tf, numbers, flights))
        if any(line.startswith("SEARCH") for line in deck):
            launching.add(tf.number)
    # A carrier TF that launches holds its hex: its planes take off from there or from the hex
    # into the wind (standard 6.10), never from a hex its plot would reach first (reference A.7).
    return [DECEPTION[seat], *plot_orders(seat, report, plots(seat, report, launching)), *flights, *decks]


def turn_of(step_key: str) -> int:
    """The game turn of a step key ``T<n>.<kind>`` (0 when it has none)."""
    found = re.match(r"T(\d+)\.", step_key)
    return int(found[1]) if found else 0


def flattop_orders(seat: str, step_key: str, report_text: str, turn: int) -> list[str]:
    """Order lines for ``seat`` in step ``step_key`` (turn ``turn``) after reading its letter."""
    if seat not in SEARCH_PLANE:
        return ["HOLD"]
    report_text = unix_lines(report_text)
    if step_key.endswith(".strike"):
        return strike_orders(report_text)
    if step_key.endswith(".losses"):
        return rank_orders(seat, report_text)
    if not step_key.endswith(".orders"):
        return ["HOLD"]
    return turn_orders(seat, read_report(report_text))


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    extra = answer_step(seat, step, kind, text)  # surface battles, submarines, survivors (demo_steps)
    if extra is not None and ".surface" in step:
        return extra
    lines = flattop_orders(seat, step, text, turn_of(step) or n + 1)
    return orders(step, *lines, *(extra.splitlines() if extra else ()))


#: The whole battle, D1 0500 to D5 2400, or until a side concedes at a nightfall review (or an
#: automatic victory): the night hours after nightfall are played without mail (quiet hours,
#: ``quiet.py``), so each side gets fewer letters than hours.
DEMO = DemoScript("coral-sea", "Demo Flat Top: Coral Sea", _answer, stop_after=None, concedes=concedes)
