"""The reference firmware (`firmware/`, its POSIX build) where the tests put the emulator.

`CFirmware` runs `sabot-shoe --stdio` and offers the part of `ShoeEmulator`'s interface that
`PtyShoe` drives (feed, tick, take_output, deal_card, press, set_lid, reset), so the C
firmware sits behind the same pty, line faults, delay and unplug as the emulator: its UART
is the process's stdin and stdout, its sensor and buttons are commands on a pipe, and what
it reports (its boot id, the lamps it shows) is read from its stderr.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from pathlib import Path

from firmware_bridge.messages import BUTTONS, LAMPS_ORDER
from firmware_bridge.session import LinkTiming

ROOT = Path(__file__).resolve().parents[2]


def build(out: Path) -> Path:
    """`make -C firmware` into `out`; the folder of the binaries."""
    subprocess.run(["make", "-s", "-C", str(ROOT / "firmware"), f"BUILD={out}"], check=True,
                   capture_output=True, text=True)
    return out


def milliseconds(timing: LinkTiming) -> str:
    values = (timing.retransmit_timeout, timing.heartbeat_period, timing.link_down_after,
              timing.hello_interval)
    return ",".join(str(round(v * 1000)) for v in values)


class CFirmware:
    firmware = "sabot-c 2.0"  # the version text its HELLO carries

    def __init__(self, binary: Path, *, timing: LinkTiming, protocol: int = 2,
                 history: int = 128, seed: int = 1):
        commands, self._commands = os.pipe()
        self.process = subprocess.Popen(
            [str(binary), "--stdio", "--commands", str(commands), "--timing",
             milliseconds(timing), "--protocol", str(protocol), "--history", str(history),
             "--seed", str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(commands,))
        os.close(commands)
        os.set_blocking(self.process.stdout.fileno(), False)
        self._pending = bytearray()
        self._changed = threading.Condition()
        self.boot_ids: list[int] = []
        self.shown: list[frozenset[str]] = []  # every change of the shoe's lamps
        self.card_counter = 0
        self._reports = threading.Thread(target=self._read_reports, daemon=True)
        self._reports.start()
        self.wait_for(lambda: self.boot_ids)

    # ---- what PtyShoe calls ----------------------------------------------------------------

    def feed(self, data: bytes, now: float) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            os.write(self.process.stdin.fileno(), data)

    def tick(self, now: float) -> None:
        """The firmware keeps its own time."""

    def take_output(self) -> list[bytes]:
        try:
            data = os.read(self.process.stdout.fileno(), 65536)
        except (BlockingIOError, OSError):
            data = b""
        self._pending += data
        cut = self._pending.rfind(0)
        if cut < 0:
            return []
        whole, self._pending = bytes(self._pending[: cut + 1]), self._pending[cut + 1 :]
        return [piece + b"\x00" for piece in whole.split(b"\x00")[:-1]]

    def deal_card(self, now: float = 0.0) -> int:
        self.card_counter += 1
        self._command("card")
        return self.card_counter

    def press(self, button: str, now: float = 0.0) -> None:
        self._command(f"press {BUTTONS.index(button) + 1}")

    def set_lid(self, is_open: bool, now: float = 0.0) -> None:
        self._command(f"lid {'open' if is_open else 'closed'}")

    def reset(self) -> None:
        boots = len(self.boot_ids)
        self.card_counter = 0
        self._command("reset")
        self.wait_for(lambda: len(self.boot_ids) > boots)

    # ---- for the tests ---------------------------------------------------------------------

    @property
    def boot_id(self) -> int:
        return self.boot_ids[-1]

    def wait_for(self, condition, limit: float = 10.0) -> None:
        with self._changed:
            assert self._changed.wait_for(condition, limit), "the firmware did not report"

    def close(self) -> None:
        self._command("quit")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._commands)
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()

    def _command(self, line: str) -> None:
        os.write(self._commands, (line + "\n").encode())
        time.sleep(0)  # let the firmware's loop run (it polls every millisecond)

    def _read_reports(self) -> None:
        for line in self.process.stderr:
            word, _, value = line.decode().strip().partition(" ")
            with self._changed:
                if word == "boot":
                    self.boot_ids.append(int(value, 16))
                elif word == "lamps":
                    mask = int(value, 16)
                    self.shown.append(frozenset(name for i, name in enumerate(LAMPS_ORDER)
                                                if mask >> i & 1))
                self._changed.notify_all()
