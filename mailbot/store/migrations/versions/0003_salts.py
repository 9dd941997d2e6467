# SPDX-License-Identifier: GPL-3.0-or-later
"""salts of hidden content in the event chain: order_set.salt, report.salt

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28 12:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Rows written before this revision keep "": their chain entries hold unsalted hashes.
    for table in ("order_set", "report"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("salt", sa.String(length=64), nullable=False, server_default=""))


def downgrade() -> None:
    for table in ("report", "order_set"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("salt")
