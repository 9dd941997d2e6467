# SPDX-License-Identifier: GPL-3.0-or-later
"""Settings: one TOML file, overridden by ``MAILBOT_*`` environment variables.

Every key and its default is documented in ``config/mailbot.example.toml``.
Nested keys map to variables with a double underscore, e.g.
``MAILBOT_IMAP__HOST``. Passwords come only from the environment
(``MAILBOT_IMAP__PASSWORD``) or from a file named by ``password_file``; they are
``SecretStr`` so they never show up in logs or ``repr``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from mailbot.errors import ConfigError
from mailbot.mail.oauth2 import loopback_or_https

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OAuth2Settings(_Section):
    """An OAuth2 login (Gmail, Microsoft 365): the refresh-token grant at ``token_url`` gives
    the access tokens. Secrets come from the environment or from files, as passwords do."""

    token_url: str = ""  # https only (http only to a loopback address, for tests)
    client_id: str = ""
    client_secret: SecretStr | None = None
    client_secret_file: Path | None = None
    refresh_token: SecretStr | None = None
    refresh_token_file: Path | None = None  # read again at each refresh; a rotated token is written here
    scope: str = ""  # empty: the scopes the refresh token was granted
    mechanism: Literal["XOAUTH2", "OAUTHBEARER"] = "XOAUTH2"
    cafile: Path | None = None  # CA for the token endpoint's certificate; unset: the system's
    timeout: float = Field(default=30.0, gt=0)

    @field_validator("token_url")
    @classmethod
    def _safe_url(cls, url: str) -> str:
        # The refresh token and the client secret travel in the request.
        problem = loopback_or_https(url) if url else None
        if problem is not None:
            raise ValueError(f"{url}: {problem}")
        return url

    def is_set(self) -> bool:
        return self != OAuth2Settings()


def _check_auth(
    section: str, auth: str, oauth2: OAuth2Settings, password: object, password_file: object
) -> None:
    """The combinations that cannot be what was meant, each refused with what to change."""
    if auth == "password":
        if oauth2.is_set():
            raise ValueError(
                f'[{section}.oauth2] is set but {section}.auth is "password": set auth = "oauth2"'
            )
        return
    if password is not None or password_file is not None:
        raise ValueError(
            f'{section}.auth = "oauth2" logs in with a token, not a password: remove {section}.password '
            f"(MAILBOT_{section.upper()}__PASSWORD) and {section}.password_file"
        )
    missing = [key for key in ("token_url", "client_id") if not getattr(oauth2, key)]
    if missing:
        raise ValueError(
            f'{section}.auth = "oauth2" needs ' + " and ".join(f"{section}.oauth2.{k}" for k in missing)
        )


class ImapSettings(_Section):
    host: str = "127.0.0.1"
    port: int = 993
    security: Literal["tls", "none"] = "tls"
    cafile: Path | None = None
    user: str = ""
    auth: Literal["password", "oauth2"] = "password"
    password: SecretStr | None = None
    password_file: Path | None = None
    oauth2: OAuth2Settings = Field(default_factory=OAuth2Settings)
    mailbox: str = "INBOX"
    processed_folder: str | None = None  # move handled mail here instead of flagging \Seen
    idle: bool = True
    idle_timeout: float = 300.0  # re-issue IDLE well before servers' 30-minute limit
    poll_interval: float = 30.0
    batch_size: int = Field(default=100, ge=1, le=100)
    timeout: float = 30.0
    reconnect_min: float = 1.0
    # Reconnecting never waits longer than this: a server that is back is read again within it.
    reconnect_max: float = Field(default=8.0, gt=0)

    @model_validator(mode="after")
    def _auth_combination(self) -> Self:
        _check_auth("imap", self.auth, self.oauth2, self.password, self.password_file)
        return self


class SmtpSettings(_Section):
    host: str = "127.0.0.1"
    port: int = 587
    security: Literal["starttls", "tls", "none"] = "starttls"
    cafile: Path | None = None
    user: str = ""
    auth: Literal["password", "oauth2"] = "password"
    password: SecretStr | None = None
    password_file: Path | None = None
    oauth2: OAuth2Settings = Field(default_factory=OAuth2Settings)
    timeout: float = 30.0
    max_attempts: int = 10
    retry_base: float = 30.0  # seconds before the first retry; doubles each time
    retry_max: float = 3600.0
    # While the server cannot be reached (or refuses TLS or the login), one letter probes it
    # after this back-off, doubling up to ``reconnect_max``: sending resumes within that of
    # the server being right again. Letters spend no attempt on it.
    reconnect_min: float = Field(default=0.5, gt=0)
    reconnect_max: float = Field(default=8.0, gt=0)
    connections: int = Field(default=3, ge=1, le=32)  # letters with the server at once

    @model_validator(mode="after")
    def _auth_combination(self) -> Self:
        _check_auth("smtp", self.auth, self.oauth2, self.password, self.password_file)
        if self.auth == "oauth2" and not self.user.strip():
            raise ValueError('smtp.auth = "oauth2" needs smtp.user, the account the token is for')
        return self


class StoreSettings(_Section):
    # An absolute path (four slashes): a relative one would give each working directory its own database.
    url: str = "sqlite:////var/lib/mailbot/mailbot.db"


class BotSettings(_Section):
    address: str = "mailbot@localhost"
    name: str = "mailbot"
    gm_address: str | None = None  # told about failed deliveries and shunted letters
    max_message_bytes: int = 256_000
    max_text_chars: int = 64_000
    # The loop breaker: at most this many answers an hour to one address (a player writes a
    # few letters a turn), then one notice and none until the hour is over; letters are still
    # read. Answers to letters that held no command the bot could use count against the
    # tighter second limit (an auto-responder's or another robot's letters).
    answers_per_hour: int = Field(default=30, ge=1)
    idle_answers_per_hour: int = Field(default=10, ge=1)
    # A folder of templates that replace the shipped ones of the same name
    # (``common/reply.txt.j2``, ``flattop/report.html.j2``...); unset: the shipped ones only.
    template_overrides: Path | None = None
    timezone: str = "UTC"
    # Safety interlock: do not process a deadline when more than this share of seats sent
    # nothing, or when reading the mailbox failed within this many minutes; pause and ask the GM.
    max_missed_share: float = 0.5
    # The authserv-id of the receiving mail server whose Authentication-Results (DKIM verdicts)
    # are trusted for games that require DKIM; empty: no DKIM verdict is trusted.
    trusted_authserv_id: str = ""
    imap_trouble_minutes: float = 10.0
    # GET /health on this loopback port answers the status as JSON (always 200; "ok" says
    # whether anything needs a look); 0: no health endpoint.
    health_port: int = Field(default=0, ge=0, le=65535)
    # ``mailbot run`` handles letters and judges deadlines in a process of its own
    # (mailbot/letterproc.py), on another core than the mail loops; false: in its own threads.
    handling_process: bool = True
    # A step's map pictures (Flat Top's two sides, Salt'n'Tar's seats) are painted side by side:
    # the first here, the others in a process of their own (mailbot/render/maps/painting.py),
    # on another core; false: one after the other where the reports are written.
    map_process: bool = True
    # The watchdog: a loop (reading, letters, deadlines, outbox) that makes no progress for this
    # long while work is due is restarted in the process; after ``stall_restarts`` restarts
    # without progress the service exits non-zero (systemd or the container starts it anew).
    # ``mailbot status`` reports work due this long and untouched as not ok.
    stall_seconds: float = Field(default=90.0, gt=0)
    stall_restarts: int = Field(default=2, ge=1)
    # How often the idle service looks at the outbox for letters queued from elsewhere: the
    # game master's commands (``game extend``, announcements) queue letters that the running
    # service then sends within this many seconds, not at its next wake-up a minute later.
    outbox_poll_seconds: float = Field(default=3.0, gt=0)


class WorkersSettings(_Section):
    """Several ``mailbot run`` on one PostgreSQL store (SQLite allows one; these are unused there)."""

    # A worker that does not read the mailbox asks this often whether its reader is gone.
    takeover_seconds: float = Field(default=2.0, gt=0)
    # How often a worker looks for letters another worker read when no notice woke it: workers
    # wake each other with NOTIFY (``store/wakeups.py``), and this slow look is the safety net
    # for a notice lost; while its listening connection is down, it looks every 0.5 s.
    poll_seconds: float = Field(default=5.0, gt=0)
    # How often outbox rows of dead workers are given back, and the reader looks again at the
    # deadlines (letters handled by the other workers may have made a step ready early).
    sweep_seconds: float = Field(default=2.0, gt=0)


class DebugSettings(_Section):
    # Fault injection for crash-safety tests: the process kills itself at these points.
    crash_at: list[str] = Field(default_factory=list)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MAILBOT_", env_nested_delimiter="__", extra="forbid")

    imap: ImapSettings = Field(default_factory=ImapSettings)
    smtp: SmtpSettings = Field(default_factory=SmtpSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    bot: BotSettings = Field(default_factory=BotSettings)
    workers: WorkersSettings = Field(default_factory=WorkersSettings)
    debug: DebugSettings = Field(default_factory=DebugSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The environment beats the file (the file arrives as init arguments).
        return env_settings, init_settings, file_secret_settings


def load_settings(path: Path | None) -> Settings:
    """Read the TOML file (if any), apply environment overrides, validate.

    Every failure is a :class:`ConfigError` whose message is one line naming the file,
    where in it (line and column for TOML syntax, the key for a bad value) and what is wrong.
    """
    data: dict[str, Any] = {}  # checked by Settings itself
    if path is not None:
        data = _read_toml(path)
    where = str(path) if path is not None else "the environment"
    try:
        return Settings(**data)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings in {where}: {_validation_summary(exc)}") from exc
    except SettingsError as exc:  # a MAILBOT_* variable pydantic-settings could not parse
        raise ConfigError(f"invalid settings in {where}: {exc}") from exc


def _read_toml(path: Path) -> dict[str, object]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such settings file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{path}: cannot read the settings file: {reason}") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # its message ends "(at line L, column C)"
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def _validation_summary(exc: ValidationError) -> str:
    """Each problem as ``section.key: message``, joined on one line."""
    parts = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        parts.append(f"{key}: {error['msg']}")
    return "; ".join(parts)


def sqlite_path_is_relative(url: str) -> bool:
    """``sqlite:///var/x.db`` is relative (to the working directory); ``sqlite:////var/x.db`` is not."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return False
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return False
    return not Path(parsed.database).is_absolute()


def incomplete(settings: Settings) -> list[str]:
    """What must still be set before the service can run unattended, one line each."""
    imap, smtp = settings.imap, settings.smtp
    problems = [
        f"imap.{key} is empty: set it in [imap] or MAILBOT_IMAP__{key.upper()}"
        for key, value in (("host", imap.host), ("user", imap.user))
        if not value.strip()
    ]
    if imap.auth == "oauth2":
        problems += _oauth2_problems("imap", imap.oauth2)
    else:
        problems += _password_problems("imap", imap.password, imap.password_file)
    if smtp.auth == "oauth2":
        problems += _oauth2_problems("smtp", smtp.oauth2)
    elif smtp.user:  # without a user the bot does not log in (a local relay): no password needed
        problems += _password_problems("smtp", smtp.password, smtp.password_file)
    if sqlite_path_is_relative(settings.store.url):
        problems.append(
            f"store.url {settings.store.url} is a relative SQLite path (each working directory would get "
            "its own database): use four slashes for an absolute one, e.g. sqlite:////var/lib/mailbot/mailbot.db"
        )
    if not settings.bot.address.strip():
        problems.append("bot.address is empty: set the bot's own address in [bot] or MAILBOT_BOT__ADDRESS")
    return problems


def _password_problems(section: str, password: SecretStr | None, file: Path | None) -> list[str]:
    if password is not None:
        return []
    if file is None:
        upper = section.upper()
        return [f"no {section} password: set MAILBOT_{upper}__PASSWORD or {section}.password_file"]
    if not file.is_file():
        return [f"{section}.password_file {file} does not exist"]
    return []


def _oauth2_problems(section: str, oauth2: OAuth2Settings) -> list[str]:
    """The refresh token is required; the client secret only where given as a file (Microsoft's
    public clients have none, Google's desktop clients have one)."""
    where, env = f"{section}.oauth2", f"MAILBOT_{section.upper()}__OAUTH2__"
    problems = []
    if oauth2.refresh_token is None and oauth2.refresh_token_file is None:
        problems.append(
            f"no {section} refresh token: set {env}REFRESH_TOKEN or {where}.refresh_token_file "
            "(README: OAuth2 for Gmail and Microsoft 365)"
        )
    for key in ("refresh_token_file", "client_secret_file"):
        file = getattr(oauth2, key)
        if file is not None and not file.is_file():
            problems.append(f"{where}.{key} {file} does not exist")
    return problems


def secret(value: SecretStr | None, file: Path | None, what: str) -> str:
    """The password from the environment/file; never logged."""
    if value is not None:
        return value.get_secret_value()
    if file is not None:
        try:
            return file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"cannot read the {what} password file {file}: {exc}") from exc
    return ""
