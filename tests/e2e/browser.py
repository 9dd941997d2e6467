# SPDX-License-Identifier: GPL-3.0-or-later
"""Headless Chromium (Debian's ``chromium``) for the tests that look at pages as a reader does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from xml.etree.ElementTree import Element

import html5lib
from PIL import Image

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DESKTOP, PHONE = (1280, 900), (360, 740)
XHTML = "{http://www.w3.org/1999/xhtml}"


class Browser:
    """Headless Chromium with its own profile; every call is time-limited."""

    def __init__(self, profile: Path) -> None:
        self.profile = profile

    def run(self, *args: str, timeout: float = 90) -> str:
        command = [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={self.profile}",
            *args,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    def dom(self, page: Path) -> Element:
        return html5lib.parse(self.run("--dump-dom", page.as_uri()))

    def shot(self, page: Path, out: Path, size: tuple[int, int], *, dark: bool = False) -> Image.Image:
        scheme = ["--blink-settings=preferredColorScheme=0"] if dark else []
        self.run(*scheme, f"--screenshot={out}", f"--window-size={size[0]},{size[1]}", page.as_uri())
        return Image.open(out).convert("RGB")

    def width(self, page: Path, frame: Path, size: tuple[int, int] = PHONE) -> int:
        """How wide ``page`` lays out in a frame of ``size``: over its width, a reader scrolls sideways."""
        frame.write_text(
            "<!DOCTYPE html><html><body style='margin:0'><pre id='out'>none</pre>"
            f"<iframe id='f' src='{page.as_uri()}' style='width:{size[0]}px;height:{size[1]}px;border:0'>"
            "</iframe><script>document.getElementById('f').addEventListener('load', function () {"
            "document.getElementById('out').textContent = "
            "String(this.contentDocument.documentElement.scrollWidth); });</script></body></html>",
            encoding="utf-8",
        )
        tree = html5lib.parse(self.run("--allow-file-access-from-files", "--dump-dom", frame.as_uri()))
        found = next(e for e in tree.iter(f"{XHTML}pre") if e.get("id") == "out")
        return int(found.text or "0")

    def measure(self, page: Path, frame: Path, size: tuple[int, int], expression: str) -> str:
        """``expression`` evaluated on ``page`` laid out in a frame of ``size`` (``doc`` is its
        document): what a reader of that screen sees, measured by the browser itself."""
        frame.write_text(
            "<!DOCTYPE html><html><body style='margin:0'><pre id='out'>none</pre>"
            f"<iframe id='f' src='{page.as_uri()}' style='width:{size[0]}px;height:{size[1]}px;border:0'>"
            "</iframe><script>document.getElementById('f').addEventListener('load', function () {"
            "var doc = this.contentDocument; document.getElementById('out').textContent = "
            f"String({expression}); }});</script></body></html>",
            encoding="utf-8",
        )
        tree = html5lib.parse(self.run("--allow-file-access-from-files", "--dump-dom", frame.as_uri()))
        found = next(e for e in tree.iter(f"{XHTML}pre") if e.get("id") == "out")
        return found.text or ""
