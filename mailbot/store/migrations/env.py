# SPDX-License-Identifier: GPL-3.0-or-later
"""Alembic environment: runs on the engine the caller passes in ``config.attributes``."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import mailbot.store.game_tables
import mailbot.store.models  # noqa: F401  (registers the tables)

engine = context.config.attributes["engine"]
with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    context.run_migrations()
