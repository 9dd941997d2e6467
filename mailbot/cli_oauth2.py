# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot oauth2 authorize``: the first refresh token of a Gmail or Microsoft 365 login.

The game master opens the printed address, logs in and consents; the browser is then sent to
``http://localhost/?code=...``, where nothing answers: its address is pasted back here, and the
code in it is exchanged for the refresh token, written to the settings' ``refresh_token_file``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from mailbot.cli_ops import ConfigOption, settings_or_exit
from mailbot.errors import OAuth2Error

oauth2_app = typer.Typer(help="OAuth2 logins for Gmail and Microsoft 365.", no_args_is_help=True)


@oauth2_app.command("authorize")
def authorize(
    section: str = typer.Option("imap", "--for", help="Whose [SECTION.oauth2] settings: imap or smtp."),
    auth_url: str | None = typer.Option(
        None, "--auth-url", help="The provider's consent address (known for Google and Microsoft)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Write the refresh token here (default: the settings' refresh_token_file)."
    ),
    config: ConfigOption = None,
) -> None:
    """Get a refresh token: open the address printed, consent, paste back where the browser went."""
    from mailbot.connect import oauth2_client
    from mailbot.mail.oauth2 import (
        code_from_redirect,
        consent,
        exchange_code,
        provider_defaults,
        save_refresh_token,
    )

    settings = settings_or_exit(config)
    if section not in {"imap", "smtp"}:
        raise typer.BadParameter("imap or smtp", param_hint="--for")
    part = settings.imap if section == "imap" else settings.smtp
    if part.auth != "oauth2":
        typer.echo(
            f'{section}.auth is not "oauth2": set it and [{section}.oauth2] first (README: OAuth2)', err=True
        )
        raise typer.Exit(2)
    known = provider_defaults(part.oauth2.token_url)
    url = auth_url or (known[0] if known else None)
    if url is None:
        raise typer.BadParameter(
            "the consent address of this provider is not known: give it", param_hint="--auth-url"
        )
    scope = part.oauth2.scope or (known[1] if known else "")
    target = out or part.oauth2.refresh_token_file
    try:
        client = oauth2_client(section, part.oauth2)
        request = consent(url, client.client_id, scope, part.user)
        typer.echo(
            f"1. Open this address in a browser and log in as {part.user or 'the bot'}:\n\n{request.url}\n"
        )
        typer.echo(
            "2. After the consent the browser goes to http://localhost/?code=... and shows an error page."
        )
        pasted = typer.prompt("3. Paste that whole address here")
        refresh = asyncio.run(exchange_code(client, request, code_from_redirect(pasted, request.state)))
    except OAuth2Error as exc:
        typer.echo(f"oauth2: {exc}", err=True)
        raise typer.Exit(1) from exc
    if target is None:
        env = f"MAILBOT_{section.upper()}__OAUTH2__REFRESH_TOKEN"
        typer.echo(f"The refresh token (keep it secret; set {env} to it, or use --out FILE):\n{refresh}")
        return
    save_refresh_token(target, refresh)
    typer.echo(f"refresh token written to {target} (mode 0600); try it: mailbot check-config --connect")
