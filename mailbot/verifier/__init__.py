# SPDX-License-Identifier: GPL-3.0-or-later
"""The checker every mailbot archive ships beside its ``verify.py``, in the Python standard
library alone (``python3 verify.py --help`` says what it checks and how to run it).

Its parts, each to read on its own:

* ``rules.py``: the hashes and chain rules, from the byte-exact specification;
* ``shape.py``: ``game.json`` read, and its records' fields checked before any check reads them;
* ``pages.py``: a report put back as sent, from the archive's pages and a player's mailbox;
* ``steps.py``: the event chain, the dice chains and every step's seed, orders, seals and rolls;
* ``checker.py``: the reports and the player's letters, and the whole check (``verify``);
* ``cli.py``: the command line (``verify.py DIR``, ``chain``, ``reveal``).

The files import one another only (relative imports), never mailbot: ``verify.py`` runs them
from the archive's own folder, and mailbot imports them as ``mailbot.verifier``.
"""
