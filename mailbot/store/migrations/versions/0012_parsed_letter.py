# SPDX-License-Identifier: GPL-3.0-or-later
"""inbound.letter: the letter as the reader parsed it, kept until it is handled

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Letters stored before it have none: the letter process parses them, as it always did.
    with op.batch_alter_table("inbound") as batch:
        batch.add_column(sa.Column("letter", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbound") as batch:
        batch.drop_column("letter")
