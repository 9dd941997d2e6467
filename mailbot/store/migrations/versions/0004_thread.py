# SPDX-License-Identifier: GPL-3.0-or-later
"""identity from the thread: outbound.game_id, outbound.seat, outbound.step_key

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 13:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Letters sent before this revision keep NULL/"": replies to them need the subject tag, as before.
    with op.batch_alter_table("outbound", schema=None) as batch_op:
        batch_op.add_column(sa.Column("game_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("seat", sa.String(length=64), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("step_key", sa.String(length=64), nullable=False, server_default=""))
        batch_op.create_index(batch_op.f("ix_outbound_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbound", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbound_game_id"))
        batch_op.drop_column("step_key")
        batch_op.drop_column("seat")
        batch_op.drop_column("game_id")
