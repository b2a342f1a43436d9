"""Headless Chromium driven over the DevTools protocol on a pipe: no debugging port, so nothing listens
on any address, and the page under test is a local file.

Chromium reads protocol messages from fd 3 and writes them to fd 4, each a JSON object ended by a NUL
byte (`--remote-debugging-pipe`); that needs no client library. The browser runs in its own process
group with a throwaway profile, and `close()` ends that group: no Chromium is left behind.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

CHROMIUM = ("chromium", "chromium-browser")


def chromium_binary() -> str:
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError(
        "no Chromium on PATH: the HTML report is tested in it (Debian: apt-get install chromium)"
    )


def _above_ten(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="netcfg-chromium-")
        self._log = Path(self._profile.name) / "stderr.txt"
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Chromium's ends move above fd 10 first: moved onto 3 and 4, one must not land on the other.
        to_browser_r, from_browser_w = (_above_ten(fd) for fd in (to_browser_r, from_browser_w))
        args = [
            chromium_binary(),
            "--headless",
            "--remote-debugging-pipe",
            f"--user-data-dir={Path(self._profile.name) / 'profile'}",
            f"--window-size={width},{height}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            # Belt and braces: any host name resolves to nothing, so a page that did reach for the
            # network could not get anywhere (the test also fails on the request itself).
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "about:blank",
        ]
        if os.geteuid() == 0:
            # Chromium will not start its sandbox as root; the test runs as root in CI containers. The
            # only page it opens is the report netcfg just wrote, with its script pinned by hash.
            args.append("--no-sandbox")
        # bash (dash takes fds 0-9 only) moves the pipe ends onto fds 3 and 4, where Chromium looks.
        script = f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}'
        with self._log.open("wb") as log:
            self.proc = subprocess.Popen(
                ["/bin/bash", "-c", script, "bash", *args],
                pass_fds=(to_browser_r, from_browser_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                os.write(self._to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            # The whole group: renderer, GPU and zygote processes die with the browser.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            os.close(self._to_browser)
            os.close(self._from_browser)
            self._profile.cleanup()

    def send(self, method: str, timeout: float = 10.0, **params: Any) -> dict[str, Any]:
        """Send one command (to the attached page, once there is one) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session is not None and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self.session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise self._exited() from None
        reply = self._read_until(lambda m: m.get("id") == self._next_id, timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 10.0) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                return event
        return self._read_until(lambda m: m.get("method") == method, timeout)

    def _read_until(self, wanted: Any, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "method" in message:
                    self.events.append(message)
                if wanted(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise self._exited()
            self._buffer += chunk

    def _exited(self) -> RuntimeError:
        said = self._log.read_text(errors="replace")[-2000:]
        return RuntimeError(f"Chromium exited (code {self.proc.poll()}): {said}")

    def open(self, path: Path, width: int, height: int) -> None:
        """Open a local file in a new page of the given viewport (CSS pixels = screenshot pixels)."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Network", "Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.resize(width, height)
        self.events.clear()
        self.send("Page.navigate", url=path.resolve().as_uri())
        self.wait_event("Page.loadEventFired")
        # The load event comes before the first frames are painted, and the page's sections
        # (`content-visibility: auto`) are laid out only in a frame that finds them on screen: on a
        # busy machine a screenshot taken at once showed cells not yet painted.
        self.frames()

    def frames(self) -> None:
        """Wait for two painted frames: what a resize or a change laid out is on screen after them."""
        self.send(
            "Runtime.evaluate",
            expression="new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))",
            awaitPromise=True,
        )

    def fit_page(self, width: int) -> None:
        """Make the viewport as tall as the page, so one screenshot holds all of it."""
        self.resize(width, int(self.evaluate("document.documentElement.scrollHeight")))
        self.frames()

    def resize(self, width: int, height: int) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])

    def hover(self, x: float, y: float) -> None:
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y, button="none")

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    # What the DevTools protocol needs of a key to act as one typed (Enter activates, Tab moves focus).
    KEYS: ClassVar[dict[str, tuple[int, str]]] = {
        "Tab": (9, ""),
        "Enter": (13, "\r"),
        " ": (32, " "),
        "Escape": (27, ""),
    }

    def press(self, key: str, shift: bool = False) -> None:
        """Type one key as a person would: a real key event, handled by the page as any other."""
        code, text = self.KEYS[key]
        common = {"key": key, "code": "Space" if key == " " else key, "windowsVirtualKeyCode": code}
        modifiers = 8 if shift else 0
        self.send("Input.dispatchKeyEvent", type="keyDown", text=text, modifiers=modifiers, **common)
        self.send("Input.dispatchKeyEvent", type="keyUp", modifiers=modifiers, **common)

    def run_async(self, expression: str, timeout: float = 60.0) -> Any:
        """Evaluate an expression whose value is a promise and return what it resolves to."""
        result = self.send(
            "Runtime.evaluate", timeout, expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """What the page reported as going wrong: uncaught exceptions, console.error, and the
        browser's own errors about it (a blocked resource, a Content-Security-Policy violation)."""
        said = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                said.append(str(p["exceptionDetails"].get("text")))
            elif e["method"] == "Runtime.consoleAPICalled" and p["type"] in {"error", "assert"}:
                said.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                said.append(p["entry"]["text"])
        return said

    def requested_urls(self) -> list[str]:
        return [
            e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"
        ]
