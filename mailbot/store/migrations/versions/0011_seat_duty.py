# SPDX-License-Identifier: GPL-3.0-or-later
"""seat.duty_from: a seat handed to a new player after it had none owes from the next step on

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import mailbot.store.models

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Seats already played: none waits for a step opened before it was given (NULL: every step).
    with op.batch_alter_table("seat") as batch:
        batch.add_column(sa.Column("duty_from", mailbot.store.models.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("duty_from")
