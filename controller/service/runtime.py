"""The shoe at work: camera frames and link events turned into observations on the queue.

`ShoeRuntime` owns the camera thread (FrameSource -> reading window -> Tracker) and the
handlers for the serial link and the GPIO buttons. Every observation goes to the one
`Pipeline`. It is the same for `sabot run` (real camera, serial port, GPIO) and
`sabot simulate` (synthetic frames, the emulator on a pty, fake GPIO).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from controller.game import observations as obs
from controller.service.pipeline import Pipeline
from firmware_bridge import messages as link
from hardware.errors import CameraError, CameraStalledError
from vision import events as seen

log = logging.getLogger(__name__)

BUTTON_OBSERVATIONS = {
    "no_more_bets": obs.NoMoreBets,
    "card_disclosed": obs.Disclosed,
    "acknowledge": obs.Ack,
    "new_shoe": obs.NewShoe,
    "count_out": obs.CountOut,
}


def observation_of(event: seen.ReadingEvent) -> obs.Observation:
    if isinstance(event, seen.CardSeen):
        return obs.Card(event.card, face_up=event.face_up)
    if isinstance(event, seen.CutCard):
        return obs.Cut()
    if isinstance(event, seen.SlidBack):
        return obs.SlidBack(event.card)
    return obs.Unreadable(event.reason)


@dataclass
class _Pulse:
    """One card's pulse of the sensor: when it came and went (the host's clock at the
    link's reports), its counter and MCU event numbers, and whether a frame was captured
    within it (asked once, by `ShoeRuntime._unseen_cards`)."""

    came: float
    counter: int
    came_event: int
    went: float | None = None
    went_event: int = 0
    seen: bool = False
    boot: int | None = None  # the MCU boot whose counter it is


def _fits(window: tuple[int, int, int, int] | None, image) -> bool:
    """Whether `window` lies wholly inside `image` (no window: the whole frame, it does)."""
    if window is None:
        return True
    x, y, w, h = window
    return x + w <= image.shape[1] and y + h <= image.shape[0]


def crop(image, window: tuple[int, int, int, int] | None):
    if window is None:
        return image
    x, y, w, h = window
    return image[y:y + h, x:x + w]


HANDOVER_S = 0.25  # the longest the camera waits for the table to handle a card it read
# A pulse of the sensor is asked whether a frame was captured within it once a frame this
# much later is read: a frame can come to the camera thread a little after a later one.
UNSEEN_AFTER = 0.25
# A shoe's link that has not come up this long after the start is a fault: a missing port
# or cable lit nothing, and the table dealt on without its card sensor (an engineer's
# trial). A link that goes down once up is one at once (`LinkDown`).
LINK_START_S = 10.0
HANDOVER_POLL_S = 0.001  # a live camera's wait looks for its next frame this often


class ShoeRuntime:
    def __init__(self, pipeline: Pipeline, tracker, camera, *,
                 window: tuple[int, int, int, int] | None = None,
                 over_window: tuple[int, int, int, int] | None = None,
                 use_trigger: bool = True,
                 on_status: Callable[[str], None] | None = None,
                 on_link_state: Callable[[dict], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 link_expected: bool = False,
                 resume: tuple[int, int, int] | None = None):
        """`link_expected`: the table has a shoe's link (a serial port), which must come up
        within LINK_START_S of the start. `resume`: (MCU boot id, card counter, event) the
        journal's last `link` record holds, what the link resumes from."""
        self.pipeline = pipeline
        self.tracker = tracker
        self.camera = camera
        self.window = window
        self.over_window = over_window
        self.use_trigger = use_trigger
        self._on_status = on_status or (lambda message: log.info("%s", message))
        self.card_present: bool | None = None  # unknown until the link reports the sensor
        # Sensor changes with the time they arrived: a frame is matched with the sensor as it
        # was when the frame was grabbed, not when the camera thread got round to it.
        # Appended by the serial thread, read by the camera thread: only under the lock.
        self._sensor: deque[tuple[float, bool | None]] = deque(maxlen=64)
        self._sensor_lock = threading.Lock()
        # Each card's pulse of the sensor not yet asked about (under the same lock), and the
        # capture times of the frames read (the camera thread's): a pulse no frame was
        # captured within is a card the camera never saw (`_unseen_cards`).
        self._pulses: deque[_Pulse] = deque(maxlen=64)
        self._last_pulse: _Pulse | None = None  # the newest card's, asked about or not
        self._frame_times: deque[float] = deque(maxlen=1024)
        self._clock = clock
        # The body of a journal `link` record: the MCU's boot id, the last card counter and
        # event number whose effects are journaled (docs/protocol.md 8.3), a lid change.
        self._on_link_state = on_link_state
        self._mcu_boot: int | None = None
        self._journaled_card = 0
        self._journaled_event = 0  # the newest MCU event journaled as dealt with
        self._resume = resume
        # Guards the boot and the counters journaled, and keeps a link record next to the
        # observation it goes with in the table thread's queue (a button's, lost events',
        # cards passed unseen: `_say_unseen`): the serial thread and the camera thread both
        # write them.
        self._link_lock = threading.RLock()
        self.link_up = False
        self.link_expected = link_expected
        self._link_was_up = False
        self._link_said = False  # the link not up since the start: said once
        self._born = clock()
        self.frames = 0
        self.last_index = -1  # the last frame fully processed (its readings submitted)
        self.last_frame_at: float | None = None
        self._camera_fault = False
        self._window_said = False  # the window runs past the frame: said once
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.changed = threading.Condition()  # notified on every link event and frame batch

    # -- the camera thread -------------------------------------------------------------

    def start(self) -> ShoeRuntime:
        self._thread = threading.Thread(target=self._camera_loop, name="camera-loop",
                                        daemon=True)
        self._thread.start()
        return self

    def stopping(self) -> None:
        """From now on a camera that stops delivering is no fault: we are shutting down."""
        self._stop.set()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            if not self._thread.is_alive():
                self._journal_last_card()

    def _journal_last_card(self) -> None:
        """At a clean stop: the cards off the sensor not yet asked about are asked now (a
        pulse no frame was captured within is a fault, `_unseen_cards`), and the last card
        is journaled as dealt with where a frame was captured within its pulse and its
        passage was decided. Its counter is otherwise journaled only when the next card
        comes, and the service started again was sent it again, a pulse with no frame of it,
        and took it for a card drawn while it was stopped. A card not seen, or still in its
        passage, is not: it was never decided, and is reported so when the service starts
        again. (After a crash the card is sent again all the same: reported, never lost.)"""
        if self.use_trigger:
            unseen = self._unseen_cards(float("inf"))
            if unseen:
                self._say_unseen(unseen)
        with self._sensor_lock:
            last = self._last_pulse
            present = self.card_present
        if (last is None or present or getattr(self.tracker, "in_passage", True)
                or last.counter <= self._journaled_card or not last.seen):
            return
        self._link_state(last.counter, max(last.went_event or last.came_event,
                                           self._journaled_event))

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _camera_loop(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.camera.read()
            except CameraStalledError as error:
                self._equipment_fault(f"camera: {error}")
                continue
            except CameraError as error:
                self._equipment_fault(f"camera: {error}")
                time.sleep(0.5)
                continue
            if frame is None:  # a recording ended, or we are shutting down
                if not self._stop.is_set():
                    # A card half seen when the service stops is not an unreadable card:
                    # it was never decided, and the restarted service sees it again.
                    for event in self.tracker.flush():
                        self._submit(event, evidence_at=None)
                return
            try:
                self.on_frame(frame)
            except Exception as error:  # noqa: BLE001 - a frame we cannot read halts the table
                log.exception("frame %s could not be processed", frame.index)
                self._equipment_fault(f"camera: frame {frame.index} could not be processed "
                                      f"({type(error).__name__}: {error})")
                continue
            self._camera_fault = False

    def on_frame(self, frame) -> None:
        self.frames += 1
        self.last_frame_at = frame.at
        self._ask_link_came_up()
        if self.use_trigger:
            self._frame_times.append(frame.at)
            unseen = self._unseen_cards(frame.at)
            if unseen:
                self._say_unseen(unseen)
        past = next((window for window in (self.window, self.over_window)
                     if not _fits(window, frame.image)), None)
        if past is not None:
            # A window past the frame's edge is cut short, its picture the same frame after
            # frame: the table halted for a camera "frozen", and a playback read every card
            # unreadable, neither saying why (a lab engineer's trial).
            if not self._window_said:
                self._window_said = True
                height, width = frame.image.shape[:2]
                self.pipeline.submit(obs.EquipmentFault(
                    f"camera: the {'reading' if past is self.window else 'over view'} "
                    f"window {list(past)} runs past the "
                    f"camera's {width} x {height} frame (`sabot calibrate` finds it in one)"))
            return
        over = crop(frame.image, self.over_window) if self.over_window else None
        present = self.sensor_at(frame.at) if self.use_trigger else None
        for event in self.tracker.feed(crop(frame.image, self.window), card_present=present,
                                       frame_index=frame.index, over=over):
            self._submit(event, evidence_at=frame.at)
        self.last_index = frame.index
        with self.changed:
            self.changed.notify_all()

    def _submit(self, event: seen.ReadingEvent, evidence_at: float | None) -> None:
        # The evidence is the frame that decided the card (the second of the agreeing ones):
        # the frame-to-lamp latency is what the service adds to what the camera gave it.
        pulse = (self._pulse_at(evidence_at)
                 if self.use_trigger and evidence_at is not None else None)
        with self._link_lock:
            # The card's own counter in the transaction of its reading: journaled only when
            # the next card came, the last card read before a kill -9 was sent again at the
            # start, a pulse with no frame of it, and halted the table as a card drawn while
            # the service was down (a lab's trial, stop 48).
            if (pulse is not None and pulse.boot == self._mcu_boot
                    and pulse.counter > self._journaled_card):
                self._link_state(pulse.counter, pulse.came_event)
            ticket = self.pipeline.submit(observation_of(event), evidence_at=evidence_at)
        self._hand_over(ticket)

    def _pulse_at(self, at: float) -> _Pulse | None:
        """The card's pulse of the sensor a frame grabbed at `at` belongs to: the latest to
        come before it (the frame that ends a passage comes just after its pulse went)."""
        with self._sensor_lock:
            came = [pulse for pulse in (*self._pulses, self._last_pulse)
                    if pulse is not None and pulse.came <= at]
        return max(came, key=lambda pulse: pulse.came, default=None)

    def _hand_over(self, ticket: int) -> None:
        """The lamps before the passage's next frame is read: read beside the table thread,
        those frames took the interpreter from it (frame-to-lamp p99 12.6-15.6 ms in
        bench.e2e, the commit alone 0.3 ms). They are evidence all the same (a card pushed
        back, two cards in one sensor pulse, a second card with no empty frame between): a
        camera that keeps every frame (a recording, the simulator's) loses none by the
        wait, but a live one keeps only its newest, so it is waited for only until its next
        frame has come. Bounded: a table thread that is stopped or slow (an SD card's
        commit) does not stop the camera."""
        if not getattr(self.camera, "live", True):
            self.pipeline.wait_for(ticket, timeout=HANDOVER_S)
            return
        frame_waiting = getattr(self.camera, "frame_waiting", None)
        if frame_waiting is None:
            return
        deadline = time.monotonic() + HANDOVER_S
        while not frame_waiting() and time.monotonic() < deadline:
            if self.pipeline.wait_for(ticket, timeout=HANDOVER_POLL_S):
                return

    def _equipment_fault(self, reason: str) -> None:
        if self._stop.is_set():
            return  # shutting down: a camera that stops now is no fault of the table
        if not self._camera_fault:  # once per outage, not once per missed frame
            self._camera_fault = True
            # Not said as a status too: the table's fault event says it, in the log as
            # everywhere (`main.log_table_events`; the log had each camera fault twice).
            self.pipeline.submit(obs.EquipmentFault(reason))

    # -- the serial link and the buttons ----------------------------------------------------

    def on_link_event(self, event) -> None:
        """Called from the serial thread for every event the link delivers."""
        if isinstance(event, link.CardPresent):
            self._set_sensor(True, event.counter, event.mcu_event)
            # Journal the card *before* this one as seen: this card's reading is not in the
            # journal yet. A crash now makes the restarted link report this card as missed
            # (a fault) instead of skipping it; its event comes again (version 2).
            self._link_state(event.counter - 1, event.mcu_event - 1)
        elif isinstance(event, link.CardGone):
            self._set_sensor(False, event=event.mcu_event)
        elif isinstance(event, link.ButtonPressed):
            # The event number goes in the transaction of the press's observation: a
            # restarted host is sent the presses after it, never this one again.
            with self._link_lock:
                self._link_state(self._journaled_card, event.mcu_event)
                self.on_button(event.name)
        elif isinstance(event, link.LidChanged):
            self._link_state(self._journaled_card, event.mcu_event, lid=event.open)
            log.info("shoe lid %s", "opened" if event.open else "closed")
        elif isinstance(event, link.LinkUp):
            self.link_up = self._link_was_up = True
            with self._link_lock:
                if self._mcu_boot is not None and event.boot_id != self._mcu_boot:
                    self._forget_pulses()  # another boot: its counters are not these
                if (self._mcu_boot is None and self._resume is not None
                        and self._resume[0] == event.boot_id):
                    # The same boot as the journal's: its counters go on from there. From 0,
                    # a press before the first card journaled counter 0, and the start after
                    # that took every card since the boot for one missed (a review, stop 49).
                    self._journaled_card = max(self._journaled_card, self._resume[1])
                    self._journaled_event = max(self._journaled_event, self._resume[2])
                self._mcu_boot = event.boot_id
            # News, not a warning (`on_status` is the service's warnings: the log said
            # "level=WARNING ... link up" at every start, an operator's trial).
            log.info("link up: firmware %s, boot %#x", event.firmware, event.boot_id)
        elif isinstance(event, link.LinkDown):
            self.link_up = False
            self._set_sensor(None)  # no sensor: fall back to image evidence
            self._submit_plain(obs.EquipmentFault(f"link down: {event.reason}"))
        elif isinstance(event, link.CardsMissed):
            self._submit_plain(obs.EquipmentFault(
                f"{event.count} card(s) passed the sensor while the host was away"))
        elif isinstance(event, link.EventsLost):
            with self._link_lock:
                self._link_state(self._journaled_card, event.last)
                self.pipeline.submit(obs.EquipmentFault(event.describe()))
        elif isinstance(event, link.McuReset):
            with self._link_lock:  # another boot: its counters start again
                self._mcu_boot = event.new_boot_id
                self._journaled_card = self._journaled_event = 0
                self._forget_pulses()  # the old boot's counters
            self._on_status("shoe microcontroller restarted")
        elif isinstance(event, link.McuError):
            self._on_status(f"shoe microcontroller error {event.code}: {event.text}")
        with self.changed:
            self.changed.notify_all()

    def _set_sensor(self, present: bool | None, counter: int | None = None,
                    event: int = 0) -> None:
        with self._sensor_lock:
            self.card_present = present
            now = self._clock()
            self._sensor.append((now, present))
            if present and counter is not None:
                self._last_pulse = _Pulse(now, counter, event, boot=self._mcu_boot)
                self._pulses.append(self._last_pulse)
            elif present is False and self._pulses and self._pulses[-1].went is None:
                self._pulses[-1].went, self._pulses[-1].went_event = now, event

    def _ask_link_came_up(self) -> None:
        if (not self.link_expected or self._link_was_up or self._link_said
                or self._clock() - self._born < LINK_START_S):
            return
        self._link_said = True
        self.pipeline.submit(obs.EquipmentFault(
            f"link down: the shoe's microcontroller has not answered in {LINK_START_S:.0f} s "
            "since the start (check [serial] port and the shoe's cable: the log says why "
            "the port does not open)"))

    def _say_unseen(self, unseen: list[_Pulse]) -> None:
        """The fault of cards that passed with no frame of them, their counters journaled
        with it as dealt with: reported once. Left to be sent again, they were reported at
        the next start too, after the supervisor's acknowledgement, and the next good card,
        drawn while the table was halted again, was set aside (an engineer's trial)."""
        first, last = unseen[0], unseen[-1]
        fault = obs.EquipmentFault(
            f"{len(unseen)} card(s) passed the sensor with no camera frame of them "
            f"(card counter {first.counter}"
            f"{f'-{last.counter}' if last is not first else ''}): drawn while the service "
            "was not running, or the camera stalled")
        with self._link_lock:  # the record and the fault in one transaction
            # Of the boot they were counted in only: a counter of the boot before, written
            # under a new boot's id, would make its first cards look journaled already.
            if last.boot == self._mcu_boot and last.counter > self._journaled_card:
                self._link_state(last.counter, last.went_event or last.came_event)
            self.pipeline.submit(fault)

    def _unseen_cards(self, at: float) -> list[_Pulse]:
        """The sensor's pulses that ended UNSEEN_AFTER before `at` with no frame captured
        within them (each pulse asked once). After a restart the shoe's
        microcontroller sends again what the service had not journaled (docs/protocol.md
        8.3): the cards drawn while no service ran come as pulses a few milliseconds long,
        with no frame of them, and the tracker, which reads frames while the sensor is on,
        saw no passage; in a lab's trial four cards went so, the next round journaled
        without them, and no fault. A live card covers the sensor for several frames."""
        with self._sensor_lock:
            ended = [pulse for pulse in self._pulses
                     if pulse.went is not None and pulse.went <= at - UNSEEN_AFTER]
            for pulse in ended:
                self._pulses.remove(pulse)
                pulse.seen = any(pulse.came <= t < pulse.went for t in self._frame_times)
        return [pulse for pulse in ended if not pulse.seen]

    def sensor_at(self, at: float) -> bool | None:
        """The card sensor as it was at time `at` (the latest change not after it)."""
        with self._sensor_lock:
            history = tuple(self._sensor)
        for changed, present in reversed(history):
            if changed <= at:
                return present
        if len(history) == self._sensor.maxlen:
            return history[0][1]  # older than what is kept: the oldest known state
        return None  # before the link first reported the sensor

    def _forget_pulses(self) -> None:
        with self._sensor_lock:
            self._pulses.clear()
            self._last_pulse = None

    def _link_state(self, counter: int, event: int, **extra) -> None:
        """Queue a `link` record: written in the transaction of the next observation (the
        press's own, when a button is next). The serial thread calls it, and the camera
        thread for cards that passed unseen: under a lock, the counter never goes back."""
        if self._on_link_state is None or self._mcu_boot is None:
            return
        with self._link_lock:
            counter = self._journaled_card = max(counter, self._journaled_card)
            event = self._journaled_event = max(self._journaled_event, event)
            body = {"boot_id": self._mcu_boot, "card_counter": counter}
            if event > 0:  # version 2 numbers the MCU's events; version 1 has none
                body["event"] = event
            self._on_link_state(body | extra)

    def on_button(self, name: str) -> None:
        """A dealer or supervisor button, from GPIO or from the microcontroller."""
        observation = BUTTON_OBSERVATIONS.get(name)
        if observation is None:
            self._on_status(f"unknown button {name!r} ignored")
            return
        self._submit_plain(observation())

    def _submit_plain(self, observation: obs.Observation) -> None:
        """Submit from the serial or the GPIO thread: under the link's lock, so that it does
        not come between a card's counter record and the card's reading (`_submit`), whose
        transaction that record must be (a second review, stop 49: a press in between took
        the record, and a kill -9 before the reading's commit lost the card)."""
        with self._link_lock:
            self.pipeline.submit(observation)

    def wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(predicate, timeout)
