# SPDX-License-Identifier: GPL-3.0-or-later
"""The files under deploy/: the systemd unit, the container file and the example env file.

The unit is checked by ``systemd-analyze verify`` (``tools/system-deps.sh``
installs it) on a copy whose binary path points at this venv's ``mailbot``, so
that only the path differs from what is shipped. No container engine is
assumed: the container file is parsed and the instructions it relies on are
checked. Every command line in these files is checked against the real CLI,
and every ``MAILBOT_*`` variable against the settings.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from mailbot.cli import app
from mailbot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "mailbot.service"
CONTAINERFILE = DEPLOY / "Containerfile"
ENV_EXAMPLE = DEPLOY / "env.example"
SHIPPED_BIN = "/opt/mailbot/bin/mailbot"
CONFIG = "/etc/mailbot/mailbot.toml"


def _unit() -> dict[str, list[str]]:
    """``Key: [values]`` of the unit (all sections; no key appears in two of them here)."""
    keys: dict[str, list[str]] = {}
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    return keys


def _instructions() -> list[tuple[str, str]]:
    """The container file as (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text(encoding="utf-8"))
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            word, _, rest = stripped.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def _exec_form(args: str) -> list[str]:
    """JSON exec form (``["a", "b"]``) as a list; shell form is refused: signals must reach mailbot."""
    assert args.startswith("["), f"use the exec form: {args}"
    return [part.strip().strip('"') for part in args.strip("[]").split(",")]


def _command(words: list[str]) -> Any:
    """The (click) command that ``mailbot WORDS...`` runs, after checking every option on it exists."""
    command: Any = typer.main.get_command(app)  # typer may vendor click: no click import here
    rest = list(words)
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        name = rest.pop(0)
        assert name in command.commands, f"mailbot has no command {name!r} (in {words})"
        command = command.commands[name]
    options = {opt for param in command.params for opt in param.opts}
    for word in rest:
        if word.startswith("-"):
            assert word in options, f"mailbot {' '.join(words)}: no option {word}"
    return command


# -- systemd ---------------------------------------------------------------------------


def test_unit_runs_the_bot_as_an_unprivileged_hardened_service() -> None:
    keys = _unit()
    single = {key: values[-1] for key, values in keys.items()}
    assert single["Type"] == "simple" and single["User"] == "mailbot"
    assert single["WorkingDirectory"] == "/var/lib/mailbot"
    assert single["EnvironmentFile"] == "/etc/mailbot/env"
    assert single["Restart"] == "on-failure" and int(single["RestartSec"]) > 0
    assert single["KillMode"] == "mixed"  # the moderator stops its letter process itself
    assert single["NoNewPrivileges"] == "yes" and single["ProtectSystem"] == "strict"
    assert single["ReadWritePaths"] == "/var/lib/mailbot"
    assert single["PrivateTmp"] == "yes" and single["ProtectHome"] == "yes"
    assert single["ExecStartPre"] == f"{SHIPPED_BIN} db upgrade --config {CONFIG}"
    assert single["ExecStart"] == f"{SHIPPED_BIN} run --config {CONFIG}"


@pytest.mark.parametrize("key", ["ExecStartPre", "ExecStart"])
def test_unit_command_lines_exist_in_the_cli(key: str) -> None:
    words = shlex.split(_unit()[key][0])
    assert words[0] == SHIPPED_BIN
    _command(words[1:])


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="tools/system-deps.sh installs systemd")
def test_systemd_analyze_verify_finds_nothing(tmp_path: Path) -> None:
    # The shipped binary path does not exist here; this venv's mailbot stands in for it. Nothing
    # else is changed, and any warning at all (an unknown key, a bad value) fails the test.
    venv_bin = Path(sys.executable).with_name("mailbot")
    assert venv_bin.exists()
    copy = tmp_path / "mailbot.service"
    copy.write_text(UNIT.read_text(encoding="utf-8").replace(SHIPPED_BIN, str(venv_bin)), encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="tools/system-deps.sh installs systemd")
def test_systemd_analyze_verify_would_catch_a_typo(tmp_path: Path) -> None:
    venv_bin = Path(sys.executable).with_name("mailbot")
    text = UNIT.read_text(encoding="utf-8").replace(SHIPPED_BIN, str(venv_bin))
    copy = tmp_path / "mailbot.service"
    copy.write_text(text.replace("ProtectHome=", "ProtectHom="), encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "ProtectHom" in done.stderr


# -- container ---------------------------------------------------------------------------


def test_containerfile_runs_mailbot_as_a_non_root_user_with_a_health_check() -> None:
    steps = _instructions()
    words = [word for word, _ in steps]
    args = dict(steps)  # the last of each
    assert steps[0] == ("FROM", "python:3.11-slim")
    assert args["USER"] not in {"root", "0"} and not args["USER"].startswith(("root:", "0:"))
    assert words.index("USER") < words.index("ENTRYPOINT")  # the process never runs as root
    assert args["VOLUME"] == "/var/lib/mailbot"
    assert _exec_form(args["ENTRYPOINT"]) == ["mailbot"]
    assert _exec_form(args["CMD"])[:3] == ["run", "--config", CONFIG]
    _command(_exec_form(args["CMD"]))
    assert "CMD" in args["HEALTHCHECK"]
    health = _exec_form(args["HEALTHCHECK"].split("CMD", 1)[1].strip())
    assert health == ["mailbot", "status", "--config", CONFIG]


def test_containerfile_health_check_command_exists() -> None:
    commands: Any = typer.main.get_command(app)
    if "status" not in commands.commands:
        pytest.skip("`mailbot status` is being added separately; the health check relies on it")
    _command(["status", "--config", CONFIG])


def test_containerfile_copies_only_what_exists() -> None:
    for word, args in _instructions():
        if word == "COPY":
            *sources, _dest = args.split()
            for source in sources:
                assert (ROOT / source).exists(), f"COPY {source}: not in the repository"


# -- settings named in the files ---------------------------------------------------------


def _variables(text: str) -> set[str]:
    return set(re.findall(r"\bMAILBOT_[A-Z_]+__[A-Z_]+", text))


@pytest.mark.parametrize("path", [ENV_EXAMPLE, CONTAINERFILE, UNIT], ids=lambda p: p.name)
def test_every_mailbot_variable_is_a_setting(path: Path) -> None:
    for variable in _variables(path.read_text(encoding="utf-8")):
        section, key = variable.removeprefix("MAILBOT_").lower().split("__")
        assert section in Settings.model_fields, variable
        model = Settings.model_fields[section].annotation
        assert model is not None and key in model.model_fields, variable


def test_env_example_is_plain_assignments_with_absolute_sqlite_path() -> None:
    lines = [line for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    for line in lines:
        assert line.startswith("#") or re.fullmatch(r"MAILBOT_[A-Z_]+__[A-Z_]+=[^\"' ]+", line), line
    assert "MAILBOT_STORE__URL=sqlite:////var/lib/mailbot/mailbot.db" in lines


def _running_it_for_real() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Running it for real\n", 1)[1]
    return section.split("\n## ", 1)[0]


def test_readme_names_only_real_settings() -> None:
    section = _running_it_for_real()
    named = set(re.findall(r"`(imap|smtp|store|bot|debug)\.([a-z_]+)", section))
    assert len(named) > 10
    for part, key in named:
        model = Settings.model_fields[part].annotation
        assert model is not None and key in model.model_fields, f"{part}.{key}"
    for variable in _variables(section):
        part, key = variable.removeprefix("MAILBOT_").lower().split("__")
        model = Settings.model_fields[part].annotation
        assert model is not None and key in model.model_fields, variable


def test_readme_run_options_exist() -> None:
    section = _running_it_for_real()
    for option in sorted(set(re.findall(r"--log-[a-z]+", section))):
        _command(["run", option])
