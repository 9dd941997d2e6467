# SPDX-License-Identifier: GPL-3.0-or-later
"""the seat's map with its report: report.map_svg

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 12:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Reports written before this revision keep "": they were sent without a map.
    with op.batch_alter_table("report", schema=None) as batch_op:
        batch_op.add_column(sa.Column("map_svg", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("report", schema=None) as batch_op:
        batch_op.drop_column("map_svg")
