# SPDX-License-Identifier: GPL-3.0-or-later
"""Who the bot is on the wire: its address and name, the GM's address, its size limits and
the loop breaker's limits. Every letter the bot writes is signed with it."""

from __future__ import annotations

from dataclasses import dataclass, field

from mailbot.services.post.throttle import Limits


@dataclass(frozen=True)
class Identity:
    """Who the bot is on the wire, and its limits."""

    address: str
    name: str
    gm_address: str | None = None
    max_message_bytes: int = 256_000
    max_text_chars: int = 64_000
    limits: Limits = field(default_factory=Limits)  # answers an hour to one address (the loop breaker)
