"""A recording in the layout of `sabot record` without a camera or a shoe: for rigs, tests
and the vision bench.

The frames are rendered by `vision.synth`; the serial bytes are what an emulated shoe
(`firmware_bridge.emulator`) sent to a host link that answered it, on a clock stepped in
recorded time, so `sabot playback` drives the real link with them as it would with the
bytes of a physical shoe. The card sensor is covered a few milliseconds before the first
frame that shows a card, and uncovered before the first that does not, as on a shoe whose
sensor sits just above the camera's window.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from controller.game.script import KEYWORDS
from controller.service.recording import EVENTS
from controller.sim.camera import camera_frame
from controller.sim.dealer import BUTTON_OF
from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.link import Link
from firmware_bridge.messages import CardGone, CardPresent
from vision import synth
from vision.imageio import write_image

HOST_BOOT_ID = 0x5AB07001  # the boot id of the recording host's link
LEAD_IN_S = 0.5  # the link's handshake before the first frame
SENSOR_AHEAD_S = 0.004  # a sensor edge comes this long before the frame that shows it
STEP_S = 0.002  # the emulated line's clock step
# The deal language's tokens for the shoe's buttons, and the buttons' names on the link.
BUTTONS = {token: BUTTON_OF[kind] for token, kind in KEYWORDS.items() if kind in BUTTON_OF}
PRESS_GAP_FRAMES = 12  # empty frames before and after a press


def write_synthetic_recording(deck, tokens: list[str], out: str | Path, *, seed: int = 1,
                              window: tuple[int, int] = (40, 30), frame_size=(320, 260),
                              frames_per_card: int = 24, fps: float = 90.0,
                              severity: float | None = None) -> Path:
    """`deck` dealt in the order `tokens` (card codes, `^code` face up, CUT, JOKER, and the
    shoe's buttons NMB, DISCLOSED, ACK, NEWSHOE, COUNT, pressed between two cards), with the
    reading window at `window` (x, y) of each camera frame."""
    folder = Path(out)
    (folder / "frames").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    kwargs = {} if severity is None else {"severity": severity}
    line = _EmulatedLine(seed)
    lines = [{"kind": "start", "host_boot_id": HOST_BOOT_ID, "port": "emulated",
              "camera": "synthetic"}]
    covered = False
    t = 0.0
    for index, (window_image, present, presses) in enumerate(
            _frames(deck, tokens, rng, frames_per_card, kwargs)):
        t = round(LEAD_IN_S + index / fps, 6)
        for button in presses:
            lines += line.run_until(t - SENSOR_AHEAD_S)
            line.mcu.press(button, line.now)
        if present != covered:
            covered = present
            lines += line.run_until(t - SENSOR_AHEAD_S)
            line.sensor(present)
        lines += line.run_until(t)
        name = f"frames/{index:06d}.png"
        write_image(folder / name, camera_frame(window_image, window, frame_size))
        lines.append({"kind": "frame", "t": t, "index": index, "file": name})
    lines += line.run_until(t + LEAD_IN_S)  # the last card's sensor edge reaches the host
    (folder / EVENTS).write_text("".join(json.dumps(line) + "\n" for line in lines),
                                 encoding="utf-8")
    return folder


def _frames(deck, tokens, rng, frames_per_card: int, kwargs: dict):
    """(window, card present, buttons pressed before this frame) for every frame: a press
    has empty frames around it, so the card before it is decided before it comes."""
    presses: list[str] = []
    for token in tokens:
        if token.upper() in BUTTONS:
            presses.append(BUTTONS[token.upper()])
            continue
        code = "BACK" if token.startswith("^") else token.upper()
        if presses:
            for _ in range(PRESS_GAP_FRAMES):
                yield synth.render_window(deck, synth.EMPTY, rng=rng), False, presses
                presses = []
        for window_image, present in synth.shoe_frames(deck, [code], rng,
                                                       frames_per_card=frames_per_card,
                                                       **kwargs):
            yield window_image, present, presses
            presses = []
    for _ in range(PRESS_GAP_FRAMES if presses else 0):
        yield synth.render_window(deck, synth.EMPTY, rng=rng), False, presses
        presses = []


class _EmulatedLine:
    """An emulated shoe and the recording host's link, wired together on a stepped clock;
    what the shoe sends is recorded as `sabot record` records it."""

    def __init__(self, seed: int):
        self.mcu = ShoeEmulator(seed=seed)
        self.host = Link(boot_id=HOST_BOOT_ID, version="sabot-record")
        self.now = 0.0

    def sensor(self, present: bool) -> None:
        if present:
            self.mcu.card_present(self.now)
        else:
            self.mcu.card_gone(self.now)

    def run_until(self, until: float) -> list[dict]:
        records = []
        while self.now < until:
            self.now = min(until, self.now + STEP_S)
            t = round(self.now, 6)
            self.mcu.tick(self.now)
            events = self.host.tick(self.now)
            sent = b"".join(self.mcu.take_output())
            if sent:
                records.append({"kind": "rx", "t": t, "hex": sent.hex()})
                events += self.host.feed(sent, self.now)
            answer = self.host.take_output()
            if answer:
                self.mcu.feed(answer, self.now)
            records += [{"kind": "link", "t": t, "event": type(e).__name__,
                         "counter": e.counter} for e in events
                        if isinstance(e, CardPresent | CardGone)]
        return records
