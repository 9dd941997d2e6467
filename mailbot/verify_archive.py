#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Check a mailbot game archive with nothing but the Python standard library.

    python3 verify.py DIR        (python3 verify.py --help says everything it checks)

Every archive holds this file as ``verify.py`` and, beside it, the folder ``verifier/`` that
does the checking (start with its ``__init__.py``). This file only runs that folder: it puts
its own folder first on the module path, so the checker run is always the archive's own copy,
never one installed elsewhere (a mailbot's, or another package of that name).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.dont_write_bytecode = True  # checking leaves the archive's folder as it was
    try:
        command = importlib.import_module("verifier.cli")
    except ImportError as exc:  # verify.py copied without its folder: say so, not a traceback
        print(
            f"verify.py: cannot load the checker from the folder verifier/ beside it ({exc}): "
            "keep verify.py and verifier/ of the archive together",
            file=sys.stderr,
        )
        return 2
    return int(command.main(sys.argv))


if __name__ == "__main__":
    sys.exit(main())
