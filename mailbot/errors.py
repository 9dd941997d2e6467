# SPDX-License-Identifier: GPL-3.0-or-later
"""The one exception tree of mailbot.

::

    MailbotError
    ├── ConfigError                 bad or missing settings
    ├── StoreError                  database problems the caller can act on
    │   ├── DuplicateError          a unique key already exists
    │   ├── GameBusy                another worker is changing this game right now
    │   └── StoreUnavailable        locked, connection lost, disk full: retry later, blame nothing
    ├── MailError                   anything about mail transport or format
    │   ├── MailTransportError      (also ConnectionError) IMAP/SMTP link trouble
    │   │   ├── ImapError           a NO/BAD answer, timeout or drop on IMAP
    │   │   ├── OAuth2Error         the OAuth2 token endpoint refused or cannot be reached: an outage
    │   │   └── SmtpError           an SMTP failure
    │   │       ├── SmtpTransportError   the link is broken (connect, TLS, AUTH, 421/454/530/535,
    │   │       │                        timeout, drop): pause all sending, spend no letter's retries
    │   │       ├── SmtpTemporaryError   4xx about one letter (RCPT/DATA): retry that letter later
    │   │       └── SmtpPermanentError   5xx about one letter: give up, tell the game master
    │   │           └── SmtpAddressError an address that cannot go out (non-ASCII without SMTPUTF8)
    │   └── MessageFormatError      a message that cannot be parsed at all
    ├── RenderError                 a letter, map or page that cannot be drawn
    │   └── MapError                (render.maps) a view's map entry the drawer cannot read
    ├── GameError                   a game plugin or game state problem
    │   └── UnknownGameError        no plugin by that name or alias
    ├── StallError                  a loop made no progress while work was due, restarts did not help
    └── CrashInjected               raised only by test fault injection

Bad player input is never an exception: parse problems are data
(see ``mailbot.core.commands`` and the plugin contract).
"""

from __future__ import annotations


class MailbotError(Exception):
    """Root of every error mailbot raises on purpose."""


class ConfigError(MailbotError):
    """Settings are missing, malformed or inconsistent."""


class StoreError(MailbotError):
    """A database operation failed in a way the caller can handle."""


class DuplicateError(StoreError):
    """A row with the same unique key already exists."""


class GameBusy(StoreError):
    """Another worker holds the game: the letter waits and is handled again shortly."""


class StoreUnavailable(StoreError):
    """The store cannot be used right now (locked by another process, connection lost, pool
    invalidated, serialization failure, disk full): nothing is wrong with the letter or the
    game being handled. The caller leaves its work as it was and tries again after a back-off."""


class MailError(MailbotError):
    """Mail transport or message format trouble."""


class MailTransportError(MailError, ConnectionError):
    """The link to a mail server failed; transport errors are ConnectionErrors too."""


class ImapError(MailTransportError):
    """An IMAP command answered NO/BAD, timed out, or the connection dropped."""


class OAuth2Error(MailTransportError):
    """No access token for an OAuth2 login: the token endpoint cannot be reached, or it refused
    (a revoked refresh token, a wrong client secret). Like a server that is down, the loops
    pause and try again; the message says what to do and never holds a token."""


class SmtpError(MailTransportError):
    """An SMTP exchange failed."""


class SmtpTransportError(SmtpError):
    """The SMTP link itself is down (connect, TLS, AUTH, 421/454/530/535, timeout, drop).

    Says nothing about the letter being sent: the outbox pauses all sending and backs off,
    and no letter spends a retry on it.
    """


class SmtpTemporaryError(SmtpError):
    """4xx reply about one letter (RCPT/DATA): that letter should be retried later."""


class SmtpPermanentError(SmtpError):
    """5xx reply about one letter: retrying will not help."""


class SmtpAddressError(SmtpPermanentError):
    """An address that cannot be put on the SMTP command line (e.g. non-ASCII, no SMTPUTF8)."""


class MessageFormatError(MailError):
    """Raw bytes that cannot be read as a message at all."""


class RenderError(MailbotError):
    """A letter, map picture or archive page cannot be drawn from its view."""


class ArchiveError(MailbotError):
    """An archive cannot be written where it was asked for (a folder holding other files)."""


class GameError(MailbotError):
    """A game plugin or a game's stored state is inconsistent."""


class UnknownGameError(GameError):
    """No game plugin is registered under the requested name or alias."""


class StallError(MailbotError):
    """A long-running loop made no progress while work was due, and restarting it in the process
    did not help: the service exits non-zero so that systemd or the container starts it anew."""


class CrashInjected(MailbotError):
    """Only raised by the fault-injection hook used in crash-safety tests."""
