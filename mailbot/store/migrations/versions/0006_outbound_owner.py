# SPDX-License-Identifier: GPL-3.0-or-later
"""which worker is sending an outbox row: outbound.lease_owner

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 21:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Rows in 'sending' from before this revision have no owner: the next start gives them back.
    with op.batch_alter_table("outbound", schema=None) as batch_op:
        batch_op.add_column(sa.Column("lease_owner", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbound", schema=None) as batch_op:
        batch_op.drop_column("lease_owner")
