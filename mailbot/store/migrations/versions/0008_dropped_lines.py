# SPDX-License-Identifier: GPL-3.0-or-later
"""orders with refused lines: order_set.dropped, order_set.confirmed

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29 11:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("order_set") as batch:
        batch.add_column(sa.Column("dropped", sa.JSON(), nullable=False, server_default="[]"))
        batch.add_column(sa.Column("confirmed", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("order_set") as batch:
        batch.drop_column("confirmed")
        batch.drop_column("dropped")
