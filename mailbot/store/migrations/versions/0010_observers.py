# SPDX-License-Identifier: GPL-3.0-or-later
"""observers of a game (OBSERVE): observer table, game.observers_allowed and game.observed

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import mailbot.store.models

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Games created before this revision allow observers, as new games do unless the GM says not.
    with op.batch_alter_table("game") as batch:
        batch.add_column(
            sa.Column("observers_allowed", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch.add_column(sa.Column("observed", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "observer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("added_at", mailbot.store.models.UTCDateTime(), nullable=False),
        sa.Column("added_by", sa.String(length=16), nullable=False, server_default="mail"),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "address"),
    )
    op.create_index("ix_observer_game_id", "observer", ["game_id"])
    op.create_index("ix_observer_address", "observer", ["address"])


def downgrade() -> None:
    op.drop_index("ix_observer_address", "observer")
    op.drop_index("ix_observer_game_id", "observer")
    op.drop_table("observer")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("observed")
        batch.drop_column("observers_allowed")
