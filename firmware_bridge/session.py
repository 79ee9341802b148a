"""One end of the reliable link, as a pure state machine (no I/O, no clock of its own).

Both the host (`Link`) and the emulated microcontroller use it: bytes and the current time go
in through `feed`/`tick`, frames to write come out of `take_output`, and what happened comes
back as a list of `SessionEvent`s. Reliability is go-back-N over an 8-bit sequence space:
cumulative acks, a window of at most `window` unacked frames, retransmission of every unacked
frame on timeout or on a duplicate ACK (fast retransmit, once per loss), and in-order
delivery with duplicates suppressed. docs/protocol.md is the specification.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge import framing
from firmware_bridge.errors import MessageError
from firmware_bridge.messages import (
    PROTOCOL,
    UNSEQUENCED,
    Hello,
    MsgType,
    Role,
    pack_hello,
    unpack_hello,
)

SEQ_MOD = 256
HALF_SPACE = SEQ_MOD // 2
# A frame `Session.check` refuses this many times running is the peer's own message: line
# damage past the CRC (one damaged frame in 65,536) does not strike one frame three times.
CORRUPT_TRIES = 3


@dataclass(frozen=True)
class LinkTiming:
    """Seconds. Defaults suit 115200 baud (a 16-byte frame takes 1.4 ms on the wire)."""

    retransmit_timeout: float = 0.1
    heartbeat_period: float = 0.25
    link_down_after: float = 1.0  # four heartbeat periods without any valid frame
    hello_interval: float = 0.25
    window: int = 16

    def __post_init__(self):
        if not 1 <= self.window < HALF_SPACE:
            raise ValueError(f"window must be 1..{HALF_SPACE - 1}, not {self.window}")


# ---- what a session reports ------------------------------------------------------------


@dataclass(frozen=True)
class Delivered:
    type: int
    payload: bytes


@dataclass(frozen=True)
class PeerHello:
    """First HELLO from a peer boot id; `previous` is the boot id it replaces (or None)."""

    hello: Hello
    previous: int | None


@dataclass(frozen=True)
class Up:
    hello: Hello


@dataclass(frozen=True)
class Down:
    reason: str


SessionEvent = Delivered | PeerHello | Up | Down


@dataclass
class SessionStats:
    frames_sent: int = 0
    retransmits: int = 0
    fast_retransmits: int = 0
    timeouts: int = 0
    delivered: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    ignored: int = 0  # frames before the handshake, bad payloads, our own echo
    corrupt: int = 0  # frames that passed the CRC with a payload no message has (`check`)


@dataclass
class _Pending:
    seq: int
    type: int
    payload: bytes
    tag: int | None = None  # the sender's own number for it (the MCU's event number)


def new_boot_id(rng: random.Random | None = None) -> int:
    """A random non-zero u32; 0 means 'unknown' in HELLO's peer field."""
    return (rng or random.SystemRandom()).randrange(1, 1 << 32)


@dataclass
class Session:
    role: Role
    version: str
    boot_id: int
    timing: LinkTiming = field(default_factory=LinkTiming)
    card_counter: int = 0  # advertised in HELLO, unless `resume_points` names the peer
    protocol: int = PROTOCOL  # the highest version we speak; the lower of both is used
    # What the old peer did not acknowledge goes to a new one (the host's lamps). False:
    # the owner rebuilds its queue itself (the MCU replays its history, docs/protocol.md 8).
    requeue_on_new_peer: bool = True
    # Host, version 2: peer boot id -> the resume point HELLO names for it.
    resume_points: dict[int, int] = field(default_factory=dict)
    # (type, payload, link version) -> raises MessageError for a payload that cannot be of
    # that type. Such a frame passed the CRC by chance (1 damaged frame in 65,536 does):
    # none of its fields is trusted, it is dropped unacknowledged like one that failed, and
    # the peer sends it again. Accepted, its sequence number would make the good copy a
    # duplicate: the message lost (a card report, found by the 10,000-card pty test). The
    # same frame refused CORRUPT_TRIES times is no accident of the line but what the peer
    # sends: it is then taken as before (the owner reports it), or the link would stall.
    check: Callable[[int, bytes, int], None] | None = None

    def __post_init__(self):
        self.reader = framing.FrameReader()
        self.stats = SessionStats()
        self.peer: Hello | None = None
        self.handshake_done = False
        self.up = False
        self._next_seq = 1
        self._last_received = 0
        self._unacked: deque[_Pending] = deque()
        self._backlog: deque[tuple[int, bytes, int | None]] = deque()
        self._retransmit_at: float | None = None
        self._recover_until: int | None = None
        self._ack_pending = False
        self._last_rx = 0.0
        self._last_tx = float("-inf")
        self._next_hello = float("-inf")
        self._out: list[bytes] = []
        self._events: list[SessionEvent] = []
        self.acked_tag: int | None = None  # the tag of the newest frame the peer acknowledged
        self.last_corrupt = ""  # why the newest frame `check` refused was refused
        self._refused: tuple[int, int] = (-1, 0)  # (seq, times) of the frame `check` refuses

    # ---- public API -----------------------------------------------------------------

    def send(self, kind: int, payload: bytes, now: float, tag: int | None = None) -> None:
        """Queue a sequenced message; it is delivered exactly once, in order, or never.
        `tag`: the caller's number for it, `acked_tag` once the peer acknowledged it."""
        if kind in UNSEQUENCED:
            raise MessageError(f"{MsgType(kind).name} is not a sequenced message")
        self._backlog.append((kind, payload, tag))
        self._pump(now)

    def feed(self, data: bytes, now: float) -> list[SessionEvent]:
        for frame in self.reader.push(data):
            self._on_frame(frame, now)
        self._pump(now)
        if self._ack_pending:
            self._emit(MsgType.ACK, 0, b"", now)
        return self._take_events()

    def tick(self, now: float) -> list[SessionEvent]:
        if self.up and now - self._last_rx > self.timing.link_down_after:
            self.up = False
            silence = now - self._last_rx
            self._events.append(Down(f"no valid frame from the peer for {silence:.2f} s"))
        if not self.up and now >= self._next_hello:
            self.send_hello(now)
        if self.handshake_done:
            if self._unacked and now >= self._retransmit_at:
                self.stats.timeouts += 1
                self._retransmit(now)
            self._pump(now)
            if now - self._last_tx >= self.timing.heartbeat_period:
                self._emit(MsgType.HEARTBEAT, 0, b"", now)
        return self._take_events()

    def take_output(self) -> list[bytes]:
        """Encoded frames (delimiters included) to write, oldest first."""
        out, self._out = self._out, []
        return out

    def send_hello(self, now: float) -> None:
        self._next_hello = now + self.timing.hello_interval
        peer = self.peer.boot_id if self.peer else 0
        counter = self.resume_points.get(peer, self.card_counter) if peer else self.card_counter
        hello = Hello(self.protocol, self.role, self.handshake_done, self.boot_id, peer,
                      counter, self.version)
        self._emit(MsgType.HELLO, 0, pack_hello(hello), now)

    @property
    def queued(self) -> int:
        """Messages not yet acknowledged by the peer."""
        return len(self._unacked) + len(self._backlog)

    @property
    def link_version(self) -> int:
        """The protocol version both ends speak: the lower of theirs (a peer's 0 counts as
        1, docs/protocol.md 8.1)."""
        if self.peer is None:
            return min(self.protocol, 1)
        return min(self.protocol, max(1, self.peer.protocol))

    # ---- receiving -----------------------------------------------------------------

    def _on_frame(self, frame: framing.Frame, now: float) -> None:
        if frame.type == MsgType.HELLO:
            self._on_hello(frame, now)
            return
        if not self.handshake_done:
            self.stats.ignored += 1  # the peer's numbering is not known to be ours yet
            return
        if self.check is not None and frame.type not in UNSEQUENCED and self._refuse(frame):
            return
        self._last_rx = now
        if not self.up:
            self.up = True
            self._events.append(Up(self.peer))
        self._on_ack(frame.ack, frame.type == MsgType.ACK, now)
        if frame.type in UNSEQUENCED:
            return
        self._ack_pending = True
        if frame.seq == (self._last_received + 1) % SEQ_MOD:
            self._last_received = frame.seq
            self.stats.delivered += 1
            self._events.append(Delivered(frame.type, frame.payload))
        elif (self._last_received - frame.seq) % SEQ_MOD < HALF_SPACE:
            self.stats.duplicates += 1
        else:
            self.stats.out_of_order += 1  # an earlier frame was lost; go-back-N resends both

    def _refuse(self, frame: framing.Frame) -> bool:
        """Whether `check` refuses `frame` as damaged past the CRC (see `check`)."""
        try:
            self.check(frame.type, frame.payload, self.link_version)  # type: ignore[misc]
            if self._refused[0] == frame.seq:
                self._refused = (-1, 0)
            return False
        except MessageError as error:
            seq, times = self._refused
            times = times + 1 if seq == frame.seq else 1
            self._refused = (frame.seq, times)
            if times > CORRUPT_TRIES:
                return False  # the peer's own message, sent as it is each time
            self.stats.corrupt += 1
            self.last_corrupt = str(error)
            return True

    def _on_hello(self, frame: framing.Frame, now: float) -> None:
        try:
            hello = unpack_hello(frame.payload)
        except MessageError:
            self.stats.ignored += 1
            return
        if hello.role == self.role:
            self.stats.ignored += 1  # our own frames echoed back (a tty with echo on)
            return
        if self.peer is None or hello.boot_id != self.peer.boot_id:
            self._new_peer(hello)
        else:
            self.peer = hello
        if hello.peer_boot_id == self.boot_id:
            self.handshake_done = True
        if self.handshake_done:
            self._last_rx = now
            if not self.up:
                self.up = True
                self._events.append(Up(hello))
        if not hello.ready:
            self.send_hello(now)  # the peer is waiting for a HELLO that names it

    def _new_peer(self, hello: Hello) -> None:
        """A peer we have not talked to (first contact or it restarted): start numbering anew."""
        previous = self.peer.boot_id if self.peer else None
        self.peer = hello
        self.handshake_done = False
        if self.up:
            self.up = False
            self._events.append(Down(f"peer restarted (boot id {hello.boot_id:#010x})"))
        self._events.append(PeerHello(hello, previous))
        # What the old peer did not acknowledge goes to the new one, renumbered (the host
        # resends its LAMPS to a rebooted MCU), unless the owner rebuilds its queue.
        unsent = [(p.type, p.payload, p.tag) for p in self._unacked]
        self._unacked.clear()
        if self.requeue_on_new_peer:
            self._backlog.extendleft(reversed(unsent))
        else:
            self._backlog.clear()
        self._next_seq = 1
        self._last_received = 0
        self._retransmit_at = None
        self._recover_until = None
        self._ack_pending = False

    def _on_ack(self, ack: int, is_ack_frame: bool, now: float) -> None:
        if not self._unacked:
            return
        acked = (ack - self._unacked[0].seq + 1) % SEQ_MOD
        if 1 <= acked <= len(self._unacked):
            for _ in range(acked):
                pending = self._unacked.popleft()
                if pending.tag is not None:
                    self.acked_tag = pending.tag
            self._retransmit_at = now + self.timing.retransmit_timeout if self._unacked else None
            if self._recover_until is not None and all(
                p.seq != self._recover_until for p in self._unacked
            ):
                self._recover_until = None
        elif acked == 0 and is_ack_frame and self._recover_until is None:
            # The peer re-acked what it had: it saw a gap or a duplicate. Resend once now
            # rather than wait for the timeout; further duplicate acks for the same loss wait.
            self.stats.fast_retransmits += 1
            self._retransmit(now)

    # ---- sending -------------------------------------------------------------------

    def _pump(self, now: float) -> None:
        if not self.handshake_done:
            return
        while self._backlog and len(self._unacked) < self.timing.window:
            kind, payload, tag = self._backlog.popleft()
            pending = _Pending(self._next_seq, kind, payload, tag)
            self._next_seq = (self._next_seq + 1) % SEQ_MOD
            self._unacked.append(pending)
            if self._retransmit_at is None:
                self._retransmit_at = now + self.timing.retransmit_timeout
            self._emit(kind, pending.seq, payload, now)

    def _retransmit(self, now: float) -> None:
        for pending in self._unacked:
            self.stats.retransmits += 1
            self._emit(pending.type, pending.seq, pending.payload, now)
        self._recover_until = self._unacked[-1].seq
        self._retransmit_at = now + self.timing.retransmit_timeout

    def _emit(self, kind: int, seq: int, payload: bytes, now: float) -> None:
        self._out.append(framing.encode(framing.Frame(kind, seq, self._last_received, payload)))
        self.stats.frames_sent += 1
        self._last_tx = now
        self._ack_pending = False  # every frame carries the cumulative ack

    def _take_events(self) -> list[SessionEvent]:
        events, self._events = self._events, []
        return events
