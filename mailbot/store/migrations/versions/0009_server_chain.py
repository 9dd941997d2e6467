# SPDX-License-Identifier: GPL-3.0-or-later
"""each game's dice-seed hash chain: server_chain

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-29 10:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Games created before this revision have no row: their steps keep drawing fresh seeds.
    op.create_table(
        "server_chain",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("root", sa.String(length=64), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("checkpoints", sa.JSON(), nullable=False, server_default="[]"),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("game_id"),
    )


def downgrade() -> None:
    op.drop_table("server_chain")
