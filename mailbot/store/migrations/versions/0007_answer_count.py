# SPDX-License-Identifier: GPL-3.0-or-later
"""the loop breaker's counters: answer_count

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import mailbot.store.models

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "answer_count",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("window_start", mailbot.store.models.UTCDateTime(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("idle_answers", sa.Integer(), nullable=False),
        sa.Column("silenced", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("address"),
    )


def downgrade() -> None:
    op.drop_table("answer_count")
