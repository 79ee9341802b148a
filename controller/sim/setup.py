"""Assembling `sabot simulate`: every real component, with emulated hardware around it."""

from __future__ import annotations

import copy
import hashlib
import os
import sys
import tempfile
import threading
from contextlib import ExitStack
from pathlib import Path

import numpy as np

import vision
from controller.game import observations as obs
from controller.game.script import (
    check_pushed_back,
    parse_script,
    read_input,
    uses_no_more_bets,
)
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.game.table import Table
from controller.service.assembly import Drivers, TableAssembly
from controller.service.config import DEFAULT_BUTTON_PINS, DEFAULT_LAMP_PINS
from controller.sim.dealer import (
    OVER_WINDOW,
    UNDER_WINDOW,
    Dealer,
    DealerTiming,
    FrameFeed,
    Stopwatch,
)
from controller.views.live import shoe_rounds, table_view
from controller.views.text import describe
from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.faults import Faults
from firmware_bridge.pty_shoe import PtyShoe
from firmware_bridge.session import LinkTiming
from hardware.camera import open_camera
from hardware.panel import open_panel
from vision.decks import named_deck
from vision.enrol import enrol
from vision.errors import ProfileError
from vision.profile import PROFILE_VERSION, load_profile, save_profile
from vision.reader import Reader
from vision.synth import render_window, write_faces
from vision.tuning import tune_for_reading

CARD_KINDS = (obs.Card, obs.Cut, obs.Unreadable)
# The emulated shoe shares two cores with the renderer and the reader, where a real MCU has
# a CPU of its own: a link is declared down only after 5 s without a frame (1 s on a shoe),
# so a busy machine does not fault the table for nothing.
SIMULATED_LINK = LinkTiming(link_down_after=5.0)


def load_observations(shoe: str | None, decks: int, style: str, seed: int | None):
    """The card order to deal and the table settings it implies."""
    if shoe is None:
        observations = dealt_until_shoe_end(shuffled_shoe(decks, seed=seed), decks)
        uses_nmb = False
    else:
        text, source = read_input(shoe)
        steps = parse_script(text, source)
        check_pushed_back(steps, source)
        observations = [step.observation for step in steps]
        uses_nmb = uses_no_more_bets(steps)
    settings = {"decks": decks, "style": style, "require_no_more_bets": uses_nmb}
    Table(**settings)  # validate before any thread starts
    return observations, settings


def enrolled_reader(deck) -> Reader:
    """What an operator does once per deck design: give its faces, enrol them. The profile
    is kept in the cache (`profile_cache`), so the next simulation of the same design starts
    at once instead of learning it again."""
    cached = profile_cache() / f"{deck.name}-{deck_digest(deck)}.npz"
    try:
        return Reader(load_profile(cached))
    except ProfileError:
        pass
    print(f"sabot: learning the {deck.name} design (once: the profile is kept in "
          f"{cached.parent})...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="sabot-enrol-") as samples:
        profile = enrol(write_faces(deck, Path(samples)))
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        save_profile(profile, partial)
        os.replace(partial, cached)  # whole or not at all, with simulations in parallel
    except OSError:
        pass  # no cache: the next simulation learns it again
    return Reader(profile)


def profile_cache() -> Path:
    """$SABOT_CACHE, else $XDG_CACHE_HOME/sabot, else ~/.cache/sabot."""
    if os.environ.get("SABOT_CACHE"):
        return Path(os.environ["SABOT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sabot" / f"profiles-v{PROFILE_VERSION}"


def deck_digest(deck) -> str:
    """A short hash of a design's images and of the vision code: a changed design, or a
    changed way of learning one, is enrolled anew."""
    digest = hashlib.sha256()
    for source in sorted(Path(vision.__file__).parent.glob("*.py")):
        digest.update(source.read_bytes())
    for code in sorted(deck.cards):
        digest.update(code.encode())
        digest.update(np.ascontiguousarray(deck.cards[code]).tobytes())
    return digest.hexdigest()[:16]


class Simulation:
    def __init__(self, settings, journal_path, deck_name, seed, speed, sink, broker=None,
                 table_id=None, damage=0.0, reader=None, signer=None, cut_colour=None):
        # Every resource is closed by the stack, also when building the rest fails.
        self._stack = ExitStack()
        self._damage = damage
        self._reader = reader
        self._signer = signer
        self._cut_colour = cut_colour
        self._log = None  # where `play_live` tells each event, off a terminal
        try:
            self._build(settings, journal_path, deck_name, seed, speed, sink, broker, table_id)
        except BaseException:
            self._stack.close()
            raise

    def _build(self, settings, journal_path, deck_name, seed, speed, sink, broker,
               table_id) -> None:
        stack = self._stack
        self.deck = named_deck(deck_name, self._cut_colour)
        tune_for_reading()
        reader = enrolled_reader(self.deck) if self._reader is None else self._reader
        self.panel = open_panel({"backend": "fake", "lamps": DEFAULT_LAMP_PINS,
                                 "buttons": DEFAULT_BUTTON_PINS})
        stack.callback(self.panel.close)
        # A fresh boot id each run, as a shoe powered up again: a resumed simulation must
        # not take the new emulator's card counter for the one the journal last saw.
        line = Faults.damaged(self._damage)  # the serial link's faults, both ways
        self.shoe = PtyShoe(ShoeEmulator(timing=SIMULATED_LINK), to_host=line, to_mcu=line,
                            seed=seed or 0)
        device = self.shoe.start()
        stack.callback(self.shoe.stop)
        empty = np.hstack((render_window(self.deck, "EMPTY"),) * 2)
        self.feed = FrameFeed(idle_frame=empty)
        # A one-frame queue: the camera delivers as fast as the reader takes frames, no
        # faster, so a burst of rendered frames does not wait in line (a live camera drops).
        camera = open_camera("synthetic", frames=self.feed, stale_after=2.0, queue_size=1)
        self._view_lock = threading.Lock()
        self._rounds: list[dict] = []
        self._view = None
        sinks = [self._remember] + ([lambda events: [sink(e) for e in events]] if sink else [])
        self.stopwatch = Stopwatch()
        # The same assembly as `sabot run`, with the emulated shoe, fake GPIO and frames.
        drivers = Drivers(panel=self.panel, camera=camera, reader=reader, serial_port=device,
                          window=UNDER_WINDOW, over_window=OVER_WINDOW,
                          end_frames=self.feed.close, link_timing=SIMULATED_LINK,
                          broker=broker)
        self.table = TableAssembly(settings, journal_path, drivers, sinks=sinks,
                                   on_handled=self.stopwatch, on_status=lambda message: None,
                                   table_id=table_id, signer=self._signer)
        stack.callback(self.table.close)
        self.journal, self.service = self.table.journal, self.table.service
        self.pipeline, self.runtime = self.table.pipeline, self.table.runtime
        self.lamps, self.transport = self.table.lamps, self.table.transport
        self.resumed = self.table.recovered
        self.dealer = Dealer(self.shoe, self.feed, self.runtime, self.pipeline, self.deck,
                             np.random.default_rng(seed), DealerTiming(speed=speed))

    def __enter__(self) -> Simulation:
        try:
            self.table.start()
            self.dealer.wait_for_link()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def drain(self) -> None:
        """Everything submitted has been handled."""
        self.pipeline.stop()

    def _remember(self, events: list[dict]) -> None:
        with self._view_lock:  # the table thread's: `play_live` sets and clears the log
            if self._log is not None:  # a log or a pipe: what happens, a line at a time
                for event in events:
                    line = describe(event)
                    if line is not None:
                        print(line, file=self._log, flush=True)
            self._rounds = shoe_rounds(self._rounds, events)
            table = getattr(self, "table", None)
            if table is None:
                return  # events completed while the journal is recovered: no view yet
            self._view = (copy.deepcopy(table.service.table.state), table.lamps.shown,
                          list(self._rounds))

    def play_live(self, observations, title: str) -> None:
        from rich.console import Console
        from rich.live import Live

        def view():
            with self._view_lock:
                if self._view is None:
                    return table_view(title, self.service.table.state, frozenset(), [],
                                      width=console.width)
                state, lit, rounds = self._view
            footer = (f"frames {self.runtime.frames}   journal {self.journal.path}")
            return table_view(title, state, lit, rounds, footer, width=console.width)

        console = Console()
        if not console.is_terminal:
            # A log or a pipe shows no live view until the end (a shoe at --speed 4 left
            # one empty for a minute and a half): each event is told as it happens, as
            # `sabot deal` tells it, and the view at the end is wide enough for both roads.
            with self._view_lock:
                self._log = sys.stdout
            try:
                self.dealer.play(observations)
            finally:
                with self._view_lock:
                    self._log = None
            console = Console(width=120)
            console.print(view())
            return
        with Live(get_renderable=view, refresh_per_second=10, transient=False,
                  console=console):
            self.dealer.play(observations)

    def stats(self, wall_s: float) -> dict:
        card_kinds = {kind.kind for kind in CARD_KINDS}
        cards = sum(1 for record in self.journal.records()
                    if record.kind == "observation" and record.body["kind"] in card_kinds)
        p50, p99 = self.stopwatch.percentile(50), self.stopwatch.percentile(99)
        return {"cards": cards, "frames": self.runtime.frames, "wall_s": round(wall_s, 3),
                "latency_ms_p50": None if p50 is None else round(p50, 2),
                "latency_ms_p99": None if p99 is None else round(p99, 2)}


def build_simulation(settings, journal_path, *, deck_name="synthetic", seed=None, speed=0.0,
                     sink=None, broker=None, table_id=None, damage=0.0,
                     reader=None, signer=None, cut_colour=None) -> Simulation:
    """`broker`: a surveillance broker client (controller.surveillance.broker) the table
    publishes to, as `sabot run` does; `table_id` the table's name in journal and topics;
    `damage`: the share of serial frames damaged each way (firmware_bridge.faults);
    `reader`: what reads the camera's windows, instead of a reader of the design's learned
    profile (a benchmark that times each read); `signer`: the table's journal key, as
    `sabot run` has one (`journal.signing`); `cut_colour`: the shoe's cut card is a plain
    card of this colour (BGR), in place of the design's."""
    return Simulation(settings, journal_path, deck_name, seed, speed, sink, broker, table_id,
                      damage, reader, signer, cut_colour)
