# SPDX-License-Identifier: GPL-3.0-or-later
"""A reply stays small whatever the letter: problems de-duplicated and capped, sections capped."""

from __future__ import annotations

from mailbot.services.inbox.handling import MAX_PROBLEMS, MAX_SECTION_LINES, Reply


def test_the_same_problem_on_many_lines_is_quoted_once_with_its_numbers() -> None:
    reply = Reply()
    for number in range(1, 101):
        reply.problem(number, "ATTACK 1", "given twice")
    (entry,) = reply.problems
    assert entry["line"] == "1, 2, 3, 4, 5, 6, 7, 8 (and 92 more)"
    assert reply.more_problems == 0


def test_past_the_cap_problems_are_only_counted_and_long_texts_cut() -> None:
    reply = Reply()
    for number in range(1, 1001):
        reply.problem(number, f"BOGUS {number} " + "x" * 500, "not a command " + "y" * 1000)
    assert len(reply.problems) == MAX_PROBLEMS and reply.more_problems == 1000 - MAX_PROBLEMS
    assert all(len(p["text"]) <= 200 and len(p["reason"]) <= 300 for p in reply.problems)
    assert reply.problems[0]["text"].endswith("…")


def test_subject_problems_are_named_and_sections_capped() -> None:
    reply = Reply()
    reply.problem(0, "FOO", "not a command I know")
    assert reply.problems[0]["line"] == "subject"
    reply.section("Orders accepted", [f"  ATTACK {n}" for n in range(5000)])
    lines = reply.sections[0]["lines"]
    assert (
        len(lines) == MAX_SECTION_LINES + 1 and lines[-1] == f"... and {5000 - MAX_SECTION_LINES} more lines"
    )
