# SPDX-License-Identifier: GPL-3.0-or-later
"""Mail that arrives while intake stores a batch (in a worker thread) is read in the same poll.

The server's note of it (an EXISTS between two commands) is not kept for the IDLE that
follows, so the poll must look again instead of waiting for the next IDLE period to end.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlalchemy.engine import Engine

from mailbot.core.letter import RawMessage
from mailbot.testing.fakes import FakeMailbox, FakeSource
from tests.services.helpers import Wired, letter


async def test_mail_arriving_during_the_store_is_read_in_the_same_poll(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = FakeMailbox()
    box.deliver(letter(subject="PING 1"))
    wired, source = Wired(engine), FakeSource(box)
    real_store = wired.intake._store
    stores = []

    def store_while_mail_arrives(uidvalidity: int, messages: Sequence[RawMessage], last_uid: int) -> int:
        stores.append(last_uid)
        if len(stores) == 1:
            box.deliver(letter(subject="PING 2"))  # arrives while the first batch is written
        return real_store(uidvalidity, messages, last_uid)

    monkeypatch.setattr(wired.intake, "_store", store_while_mail_arrives)

    result = await wired.intake.poll(source, box.uidvalidity)

    assert (result.fetched, result.stored) == (2, 2)
    assert stores == [1, 2]
    assert box.seen == {1, 2}
