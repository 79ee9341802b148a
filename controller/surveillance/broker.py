"""The broker driver: a small client interface with a real backend (paho-mqtt, imported
lazily) and a first-class fake (an in-process broker), as python-can does for its buses.

    client = open_client(address, client_id="sabot-table-7", will=("sabot/table-7/status",
                         b"offline"))
    client.on_connect = ...; client.on_disconnect = ...; client.on_ack = ...
    client.on_connect_fail = ...         # (reason): an attempt found no broker; it tries again
    client.start()                       # connects in the background, reconnects by itself
    mid = client.publish(topic, payload, qos=1, retain=False)   # None when not connected
    client.subscribe("sabot/+/event", on_message)              # (topic, payload) callback
    client.close()

Callbacks run on the client's own network thread; whoever uses them hands their data to the
thread that owns its state.

Addresses are URLs: `mqtt://[user[:password]@]host[:port]` (1883) or `mqtts://...` (8883,
TLS). A password comes from the URL, the config or a file, and never appears in a log line,
an error or the journal (`BrokerAddress.__str__` leaves it out).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from controller.errors import ConfigError, SabotError

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
OnMessage = Callable[[str, bytes], None]


class BrokerError(SabotError, ConnectionError):
    """The broker cannot be used (a missing library, a TLS file that cannot be read)."""


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None

    def __str__(self) -> str:
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


def parse_broker_url(url: str, *, username: str | None = None, password: str | None = None,
                     password_file: str | None = None, ca_file: str | None = None,
                     cert_file: str | None = None, key_file: str | None = None,
                     what: str = "--mqtt") -> BrokerAddress:
    """The address of `url`; ConfigError names what is wrong (never the password)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in DEFAULT_PORTS:
        raise ConfigError(f"{what}: {_safe(url)} is not an mqtt:// or mqtts:// URL")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise ConfigError(f"{what}: {_safe(url)} has a port that is not a number 1-65535") \
            from None
    if not parts.hostname:
        raise ConfigError(f"{what}: {_safe(url)} names no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(f"{what}: {_safe(url)}: an MQTT URL is only scheme://host:port")
    if password_file:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"{what}: cannot read the password file {password_file} "
                              f"({getattr(error, 'strerror', None) or error})") from None
    tls = parts.scheme == "mqtts"
    for name, path in (("CA file", ca_file), ("client certificate", cert_file),
                       ("client key", key_file)):
        if path and not tls:
            raise ConfigError(f"{what}: a {name} is given but {_safe(url)} is not mqtts://")
        if path and not Path(path).is_file():
            raise ConfigError(f"{what}: the {name} {path} does not exist")
    if bool(cert_file) != bool(key_file):
        raise ConfigError(f"{what}: a client certificate needs both its certificate and key")
    return BrokerAddress(
        host=parts.hostname, port=port, tls=tls,
        username=unquote(parts.username) if parts.username else username,
        password=unquote(parts.password) if parts.password else password,
        ca_file=ca_file or None, cert_file=cert_file or None, key_file=key_file or None)


def _safe(url: str) -> str:
    """The URL as it may be shown: without the password."""
    parts = urlsplit(url.strip())
    if parts.password is None:
        return url.strip()
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()


class Reachability:
    """Tells the log once that a client's broker cannot be reached, not at each of the
    client's attempts, and once that it is reached again; `waiting` says what becomes of
    what it would carry meanwhile, `reached` what happens once it is back. Its fields are
    set on the client's thread only (`connected` and `failed` are the client's callbacks)."""

    def __init__(self, client: BrokerClient, log: logging.Logger, waiting: str,
                 back: str = "") -> None:
        self.client, self._log, self._waiting, self._back = client, log, waiting, back
        self.reached = False  # a connection was made since the start
        self.unreachable = False  # the last attempt to connect failed
        client.on_connect_fail = self.failed

    def connected(self) -> None:
        if self.unreachable:
            self._log.info("the broker at %s is reached%s", self.client.address, self._back)
        self.reached, self.unreachable = True, False

    def failed(self, reason: str) -> None:
        if not self.unreachable:
            self._log.warning("the broker at %s cannot be reached (%s); %s",
                              self.client.address, reason, self._waiting)
        self.unreachable = True


class BrokerClient:
    """What every backend offers (see the module's docstring)."""

    address: object  # the broker, as log lines name it (never with a password)

    def __init__(self) -> None:
        self.on_connect: Callable[[], None] = lambda: None
        self.on_connect_fail: Callable[[str], None] = lambda reason: None
        self.on_disconnect: Callable[[str], None] = lambda reason: None
        self.on_ack: Callable[[int], None] = lambda mid: None
        self.connected = False

    def start(self) -> None:
        raise NotImplementedError

    def publish(self, topic: str, payload: bytes, *, qos: int = 1,
                retain: bool = False) -> int | None:
        raise NotImplementedError

    def subscribe(self, topic_filter: str, on_message: OnMessage, *, qos: int = 1) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


def open_client(address: BrokerAddress | str, *, client_id: str,
                will: tuple[str, bytes] | None = None, session: bool = False) -> BrokerClient:
    """A paho client of the broker at `address` (the in-process fake is made with
    `MemoryBroker().client(...)`). `session`: a persistent session (a monitor's)."""
    if isinstance(address, str):
        address = parse_broker_url(address)
    from controller.surveillance.paho_client import PahoClient  # paho only when used
    return PahoClient(address, client_id=client_id, will=will, session=session)


# -- the fake: an in-process broker ---------------------------------------------------------


class MemoryBroker:
    """A broker in this process: retained messages, `+`/`#` filters, QoS 1 acks, a Last Will,
    and outages on demand (`go_down`, `come_up`) for tests and simulations without mosquitto.
    Deliveries and acks run on the publishing thread, before `publish` returns: a caller
    must take an ack whether it comes before or after the message id (as with paho)."""

    def __init__(self) -> None:
        self.retained: dict[str, bytes] = {}
        self.up = True
        self._clients: list[MemoryClient] = []
        self._lock = threading.RLock()

    def client(self, client_id: str, *, will: tuple[str, bytes] | None = None) -> MemoryClient:
        return MemoryClient(self, client_id, will)

    def go_down(self) -> None:
        with self._lock:
            self.up = False
            clients = list(self._clients)
        for client in clients:
            client.lost("broker down")

    def come_up(self) -> None:
        with self._lock:
            self.up = True
            clients = [c for c in self._clients if c.wants_connection]
        for client in clients:
            client.try_connect()

    def attach(self, client: MemoryClient) -> bool:
        with self._lock:
            if not self.up:
                return False
            if client not in self._clients:
                self._clients.append(client)
            return True

    def detach(self, client: MemoryClient, *, gracefully: bool) -> None:
        with self._lock:
            if client in self._clients and not client.wants_connection:
                self._clients.remove(client)
        if not gracefully and client.will is not None:
            self.route(*client.will, retain=True)

    def route(self, topic: str, payload: bytes, *, retain: bool) -> None:
        with self._lock:
            if retain:
                if payload:
                    self.retained[topic] = payload
                else:
                    self.retained.pop(topic, None)
            targets = [c for c in self._clients if c.connected]
        for client in targets:
            client.deliver(topic, payload)


def topic_matches(topic_filter: str, topic: str) -> bool:
    """MQTT's filter rule: `+` one level, `#` the rest (shared `$share/G/` prefixes dropped)."""
    if topic_filter.startswith("$share/"):
        topic_filter = topic_filter.split("/", 2)[2]
    want, have = topic_filter.split("/"), topic.split("/")
    for i, part in enumerate(want):
        if part == "#":
            return True
        if i >= len(have) or (part != "+" and part != have[i]):
            return False
    return len(want) == len(have)


class MemoryClient(BrokerClient):
    def __init__(self, broker: MemoryBroker, client_id: str, will) -> None:
        super().__init__()
        self.broker, self.client_id, self.will = broker, client_id, will
        self.address = "memory://"
        self.wants_connection = False
        self._subscriptions: list[tuple[str, OnMessage]] = []
        self._mid = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        self.wants_connection = True
        self.try_connect()

    def try_connect(self) -> None:
        if not self.wants_connection or self.connected:
            return
        if not self.broker.attach(self):
            self.on_connect_fail("broker down")
            return
        self.connected = True
        self.on_connect()
        for topic_filter, on_message in list(self._subscriptions):
            self._send_retained(topic_filter, on_message)

    def lost(self, reason: str) -> None:
        if self.connected:
            self.connected = False
            self.on_disconnect(reason)

    def publish(self, topic, payload, *, qos=1, retain=False):
        if not self.connected:
            return None
        with self._lock:
            self._mid += 1
            mid = self._mid
        self.broker.route(topic, payload, retain=retain)
        if qos > 0:
            self.on_ack(mid)
        return mid

    def subscribe(self, topic_filter, on_message, *, qos=1):
        self._subscriptions.append((topic_filter, on_message))
        if self.connected:
            self._send_retained(topic_filter, on_message)

    def _send_retained(self, topic_filter: str, on_message: OnMessage) -> None:
        for topic, payload in list(self.broker.retained.items()):
            if topic_matches(topic_filter, topic):
                on_message(topic, payload)

    def deliver(self, topic: str, payload: bytes) -> None:
        for topic_filter, on_message in list(self._subscriptions):
            if topic_matches(topic_filter, topic):
                on_message(topic, payload)

    def crash(self) -> None:
        """The process died: the broker sends the Last Will."""
        self.wants_connection = False
        self.lost("crashed")
        self.broker.detach(self, gracefully=False)

    def close(self) -> None:
        self.wants_connection = False
        self.lost("closed")
        self.broker.detach(self, gracefully=True)
