# SPDX-License-Identifier: GPL-3.0-or-later
"""On SQLite only one ``mailbot run`` may work a store: the second is refused in one line."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mailbot.app import Bot
from mailbot.errors import ConfigError
from mailbot.settings import BotSettings, ImapSettings, Settings, SmtpSettings, StoreSettings
from mailbot.store import lease

REFUSAL = "on SQLite only one worker may run (use PostgreSQL for several)"


def test_a_second_lease_on_the_same_database_is_refused_with_the_message(tmp_path: Path) -> None:
    db = tmp_path / "mailbot.db"
    first = lease.acquire(db)
    try:
        with pytest.raises(ConfigError) as refused:
            lease.acquire(db)
        assert str(refused.value) == f"another mailbot run already uses {db}; {REFUSAL}"
        assert (tmp_path / "mailbot.db.lock").read_text() == f"{os.getpid()}\n"
    finally:
        first.release()


def test_after_release_the_lease_can_be_taken_again(tmp_path: Path) -> None:
    db = tmp_path / "mailbot.db"
    first = lease.acquire(db)
    first.release()
    first.release()  # idempotent
    assert not first.held
    second = lease.acquire(db)
    assert second.held
    second.release()


def test_url_forms_and_postgresql_take_no_lease(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/sub/m.db"
    assert lease.sqlite_database(url) == (tmp_path / "sub" / "m.db").resolve()
    held = lease.acquire_for(url)
    assert held.held and (tmp_path / "sub" / "m.db.lock").exists()
    held.release()
    for other in ("postgresql://mailbot@localhost/mailbot", "sqlite://", "sqlite:///:memory:"):
        assert lease.sqlite_database(other) is None
        assert not lease.acquire_for(other).held
        assert not lease.acquire_for(other).held  # several may run


def test_another_process_is_refused_while_the_lease_is_held(tmp_path: Path) -> None:
    db = tmp_path / "mailbot.db"
    url = f"sqlite:///{db}"
    code = "import sys; from mailbot.store.lease import acquire_for; acquire_for(sys.argv[1]); print('held')"
    held = lease.acquire_for(url)
    try:
        refused = subprocess.run(
            [sys.executable, "-c", code, url], capture_output=True, text=True, timeout=60, check=False
        )
        assert refused.returncode != 0
        assert f"ConfigError: another mailbot run already uses {db.resolve()}; {REFUSAL}" in refused.stderr
    finally:
        held.release()
    allowed = subprocess.run(
        [sys.executable, "-c", code, url], capture_output=True, text=True, timeout=60, check=False
    )
    assert (allowed.returncode, allowed.stdout) == (0, "held\n")


def test_a_second_mailbot_run_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    db = tmp_path / "mailbot.db"
    env = {**os.environ, "MAILBOT_STORE__URL": f"sqlite:///{db}"}
    held = lease.acquire(db.resolve())
    try:
        second = subprocess.run(
            [sys.executable, "-m", "mailbot", "run"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
    finally:
        held.release()
    assert second.returncode == 2
    assert second.stderr.strip().splitlines()[-1] == (
        f"mailbot: another mailbot run already uses {db.resolve()}; {REFUSAL}"
    )


def test_bot_run_holds_the_lease_and_releases_it_on_shutdown(tmp_path: Path) -> None:
    db = tmp_path / "mailbot.db"
    settings = Settings(
        imap=ImapSettings(host="127.0.0.1", port=1, security="none", reconnect_min=30),
        smtp=SmtpSettings(host="127.0.0.1", port=1, security="none"),
        store=StoreSettings(url=f"sqlite:///{db}"),
        bot=BotSettings(address="bot@example.test"),
    )
    bot = Bot(settings)

    async def run_briefly() -> None:
        stop = asyncio.Event()
        running = asyncio.create_task(bot.run(stop))
        await asyncio.sleep(0.2)
        with pytest.raises(ConfigError, match="another mailbot run already uses"):
            lease.acquire(db.resolve())
        stop.set()
        await running

    try:
        asyncio.run(run_briefly())
    finally:
        bot.engine.dispose()
    lease.acquire(db.resolve()).release()
