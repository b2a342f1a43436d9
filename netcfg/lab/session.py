"""What one simulated device says on an SSH session: prompt, echo, command replies and injected faults.

Transport concerns (host key, authentication, listeners, threads) live in :mod:`netcfg.lab.sshserver`;
this module only turns what the client types into what the device prints.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable

import asyncssh

from netcfg.lab.profile import LabDevice

_EXIT_COMMANDS = frozenset({"exit", "quit", "logout"})

# What a POSIX shell returns for "command not found"; exec-channel clients check the status, not the text.
_UNKNOWN_COMMAND_STATUS = 127
_TRUNCATE_KEEP_FRACTION = 0.4
_READ_CHUNK = 4096
# Out-of-band requests a client may send mid-session; a CLI simply carries on.
_IGNORED_SIGNALS = (asyncssh.BreakReceived, asyncssh.SignalReceived, asyncssh.TerminalSizeChanged)


def _format_prompt(device: LabDevice, username: str) -> str:
    return device.profile.prompt.format(name=device.name, user=username)


async def _respond(
    device: LabDevice, responder: Callable[[str], str | None], command: str, prompt: str
) -> str | None:
    """Output for one non-empty command line, after the device's latency and with its output faults
    applied; None for an unknown command."""
    if device.fault.latency_s:
        await asyncio.sleep(device.fault.latency_s)
    profile = device.profile
    if command in profile.setup_replies:
        return profile.setup_replies[command]
    # A prompt ending in '#' is already privileged (EOS users start there), so 'enable' is a no-op.
    if command == "enable" and prompt.rstrip().endswith("#"):
        return ""
    output = responder(command)
    if output is None:
        return None
    if device.fault.truncate:
        output = _truncate(output)
    if device.fault.garble:
        output = _garble(output)
    return output


def _truncate(output: str) -> str:
    lines = output.splitlines()
    kept = lines[: int(len(lines) * _TRUNCATE_KEEP_FRACTION)]
    return "".join(f"{line}\n" for line in kept)


def _garble(output: str) -> str:
    # Hex digests: nothing a parser can recognise, yet stable across runs so a failing test reproduces.
    lines = output.splitlines()
    return "".join(
        hashlib.sha256(f"{index}:{line}".encode()).hexdigest() + "\n" for index, line in enumerate(lines)
    )


def _to_wire(text: str, newline: str) -> str:
    """Text as the device prints it: terminated by a newline, with ``newline`` as the line ending.

    A PTY turns ``\\n`` into ``\\r\\n`` on output; without a PTY the bytes go out unchanged.
    """
    if not text:
        return ""
    text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    return text.replace("\n", newline)


async def serve_process(device: LabDevice, process: asyncssh.SSHServerProcess[str]) -> None:
    """asyncssh process factory body: an interactive shell, or one exec-channel command."""
    if device.fault.silent:
        await process.channel.wait_closed()
        return
    status = 0
    try:
        if process.subsystem:
            status = 1
        elif process.command is not None:
            status = await _run_exec(device, process)
        else:
            await _Shell(device, process).run()
        process.exit(status)
    except (ConnectionError, asyncssh.Error):
        # The client went away mid-session; there is nobody left to report to.
        pass


async def _run_exec(device: LabDevice, process: asyncssh.SSHServerProcess[str]) -> int:
    command = (process.command or "").strip()
    newline = "\r\n" if process.term_type else "\n"
    username = process.get_extra_info("username")
    output = await _respond(device, device.session_responder(), command, _format_prompt(device, username))
    if output is None:
        process.stderr.write(_to_wire(device.profile.invalid_input.format(command=command), newline))
        return _UNKNOWN_COMMAND_STATUS
    process.stdout.write(_to_wire(output, newline))
    return 0


class _Shell:
    """Line-at-a-time CLI on a channel with asyncssh's line editor off, so echo and CR/LF are ours.

    asyncssh's own line editor would echo too, and the doubled echo would survive netmiko's
    ``strip_command``; writing the echo here also lets it precede a slow reply, as on a real device.
    """

    def __init__(self, device: LabDevice, process: asyncssh.SSHServerProcess[str]) -> None:
        self._device = device
        self._responder = device.session_responder()
        self._process = process
        self._pty = process.term_type is not None
        self._newline = "\r\n" if self._pty else "\n"
        self._prompt = _format_prompt(device, process.get_extra_info("username"))
        self._line: list[str] = []
        # Echo waits to share one SSH packet with the reply: asyncssh sends each write as its own packet,
        # and every packet costs the single server thread a syscall.
        self._unechoed: list[str] = []
        # Enter arrives as \r, \n or \r\n depending on the client; \r\n must count once.
        self._after_cr = False

    async def run(self) -> None:
        self._process.stdout.write(self._prompt)
        while chunk := await self._read():
            for char in chunk:
                if char == "\n" and self._after_cr:
                    self._after_cr = False
                    continue
                self._after_cr = char == "\r"
                if char not in "\r\n":
                    self._line.append(char)
                    self._unechoed.append(char)
                    continue
                self._unechoed.append(self._newline)
                command = "".join(self._line).strip()
                self._line.clear()
                if command in _EXIT_COMMANDS:
                    self._write("")
                    return
                if command and self._device.fault.latency_s:
                    self._write("")  # a slow device still echoes at once; only its answer lags
                self._write(await self._answer(command))
            self._write("")

    async def _read(self) -> str:
        while True:
            try:
                return await self._process.stdin.read(_READ_CHUNK)
            except _IGNORED_SIGNALS:
                continue

    def _write(self, reply: str) -> None:
        """Send the echo of what was typed since the last write, then ``reply``."""
        # Only a terminal echoes; `ssh -T` style sessions see nothing of what they type.
        echo = "".join(self._unechoed) if self._pty else ""
        self._unechoed.clear()
        if echo or reply:
            self._process.stdout.write(echo + reply)

    async def _answer(self, command: str) -> str:
        if not command:
            return self._prompt
        output = await _respond(self._device, self._responder, command, self._prompt)
        if output is None:
            output = self._device.profile.invalid_input.format(command=command)
        return _to_wire(output, self._newline) + self._prompt
