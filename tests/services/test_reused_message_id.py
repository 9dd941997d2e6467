# SPDX-License-Identifier: GPL-3.0-or-later
"""A letter under an already stored Message-ID with another body is answered "not read"; the
same letter delivered again (other headers, same body) is still a duplicate, stored once."""

from __future__ import annotations

import email
import email.policy

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.store.models import Inbound
from mailbot.testing.fakes import FakeMailbox, FakeSource
from tests.services.helpers import Wired, letter


async def test_a_reused_message_id_with_other_text_is_answered_not_read(engine: Engine) -> None:
    box = FakeMailbox()
    first = letter(subject="PING", message_id="same@players.test")
    box.deliver(first)
    box.deliver(b"Received: from relay2.test\r\n" + first)  # the same letter by another path
    box.deliver(letter(subject="HELP", body="HELP\n", message_id="same@players.test"))
    wired = Wired(engine)
    await wired.intake.poll(FakeSource(box), box.uidvalidity)
    wired.processor.process_pending()
    await wired.outbox.send_due()
    with Session(engine) as session:
        assert len(session.exec(select(Inbound).order_by(col(Inbound.id))).all()) == 2
    texts = [email.message_from_bytes(sent.raw, policy=email.policy.default) for sent in wired.sink.sent]
    bodies = [str(m.get_body(preferencelist=("plain",)).get_content()) for m in texts]  # type: ignore[union-attr]
    assert len(bodies) == 2
    assert "PING" in bodies[0] and "not read" not in bodies[0]
    assert "Your letter was not read" in bodies[1] and "Commands" not in bodies[1]
