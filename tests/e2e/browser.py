# SPDX-License-Identifier: GPL-3.0-or-later
"""Headless Chromium (Debian's ``chromium``) for the tests that look at pages as a reader does.

One browser serves the whole test process, driven over its DevTools pipe
(``--remote-debugging-pipe``: commands in on its file descriptor 3, answers out on 4, each a JSON
text ended by a NUL byte; the standard library is all it takes). Each look opens a fresh tab with
the cache off, sizes its window (and its colour scheme), loads the page and waits until it has
loaded, then reads the DOM or takes a screenshot and closes the tab. A browser started for every
look, as the tests first did, cost about a second of CPU a look, and one test takes twenty looks:
the three browser test files took 195 s of the machine's CPU that way, 107 s this way (the demo
games they read included).
"""

from __future__ import annotations

import atexit
import base64
import fcntl
import io
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import html5lib
from PIL import Image

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DESKTOP, PHONE = (1280, 900), (360, 740)
XHTML = "{http://www.w3.org/1999/xhtml}"
#: the window of a look that names no size: headless Chromium's own default
WINDOW = (800, 600)


class Chromium:
    """One headless Chromium and its DevTools pipe: started when first asked, again if it died."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.profile = Path(tempfile.mkdtemp(prefix="mailbot-chromium-"))
        self._to = self._from = -1
        self._buffer = b""
        self._id = 0
        atexit.register(self.close)

    def _start(self) -> None:
        self._stop()
        commands, self._to = os.pipe()  # the browser reads its commands from fd 3
        self._from, answers = os.pipe()  # and writes its answers to fd 4
        # bash puts the pipe's ends at 3 and 4 and becomes the browser (a preexec_fn would run
        # Python in the child of a process with threads: the test rigs' servers). They are moved
        # to 10 and up first, so that neither end is 3 or 4 already.
        commands, answers = (_above_nine(fd) for fd in (commands, answers))
        moved = f'exec "$0" "$@" 3<&{commands} 4>&{answers} {commands}<&- {answers}>&-'
        self.process = subprocess.Popen(
            [
                "/bin/bash",
                "-c",
                moved,
                CHROMIUM,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--allow-file-access-from-files",  # a page in a frame is measured from the frame's page
                f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(commands, answers),
        )
        os.close(commands)
        os.close(answers)
        self._buffer = b""

    def _stop(self) -> None:
        if self.process is None:
            return
        self.process.kill()
        self.process.wait()
        self.process = None
        os.close(self._to)
        os.close(self._from)

    def close(self) -> None:
        self._stop()
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str = "", timeout: float = 90
    ) -> Any:
        """Send one command and wait for its answer (the events that come before it are passed over)."""
        if self.process is None or self.process.poll() is not None:
            self._start()
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for answer in self._read(deadline, method):
                if answer.get("id") == self._id:
                    assert "error" not in answer, f"{method}: {answer['error']}"
                    return answer.get("result", {})

    def _read(self, deadline: float, method: str) -> list[dict[str, Any]]:
        """The messages that arrive next (none, if nothing came within a moment)."""
        left = deadline - time.monotonic()
        assert left > 0, f"Chromium gave no answer to {method} in time"
        ready, _, _ = select.select([self._from], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(self._from, 1 << 20)
            assert chunk, f"Chromium closed its pipe during {method}"
            self._buffer += chunk
        *whole, self._buffer = self._buffer.split(b"\0")
        return [json.loads(text) for text in whole]


def _above_nine(fd: int) -> int:
    """``fd`` moved to the lowest free descriptor from 10 up."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


_CHROMIUM = Chromium()


class Browser:
    """Looks at pages through the test process's headless Chromium; every look is time-limited."""

    def __init__(self, chromium: Chromium = _CHROMIUM) -> None:
        self.chromium = chromium

    def _look(
        self, page: Path, size: tuple[int, int], *, dark: bool = False, timeout: float = 90
    ) -> tuple[str, str]:
        """A new tab ``size`` pixels wide and high, showing ``page`` loaded: its target and session."""
        call = self.chromium.call
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Network.setCacheDisabled", {"cacheDisabled": True}, session=session)
        metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False}
        call("Emulation.setDeviceMetricsOverride", metrics, session=session)
        if dark:
            media = {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
            call("Emulation.setEmulatedMedia", media, session=session)
        call("Page.navigate", {"url": page.as_uri()}, session=session)
        deadline = time.monotonic() + timeout
        while self._evaluate(session, "document.readyState") != "complete":
            assert time.monotonic() < deadline, f"{page} did not finish loading"
            time.sleep(0.01)
        return target, session

    def _evaluate(self, session: str, expression: str) -> Any:
        found = self.chromium.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
        )
        return found.get("result", {}).get("value")

    def dom(self, page: Path, size: tuple[int, int] = WINDOW) -> Element:
        target, session = self._look(page, size)
        try:
            return html5lib.parse(str(self._evaluate(session, "document.documentElement.outerHTML")))
        finally:
            self.chromium.call("Target.closeTarget", {"targetId": target})

    def shot(self, page: Path, out: Path, size: tuple[int, int], *, dark: bool = False) -> Image.Image:
        target, session = self._look(page, size, dark=dark)
        try:
            taken = self.chromium.call("Page.captureScreenshot", {"format": "png"}, session=session)
        finally:
            self.chromium.call("Target.closeTarget", {"targetId": target})
        data = base64.b64decode(taken["data"])
        out.write_bytes(data)
        return Image.open(io.BytesIO(data)).convert("RGB")

    def width(self, page: Path, frame: Path, size: tuple[int, int] = PHONE) -> int:
        """How wide ``page`` lays out in a frame of ``size``: over its width, a reader scrolls sideways."""
        return int(self.measure(page, frame, size, "doc.documentElement.scrollWidth") or "0")

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
        tree = self.dom(frame)
        found = next(e for e in tree.iter(f"{XHTML}pre") if e.get("id") == "out")
        return found.text or ""
