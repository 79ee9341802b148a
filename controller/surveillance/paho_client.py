"""The real broker backend: paho-mqtt 2.x, MQTT 5 (shared subscriptions for monitors).

paho runs its own network thread (`loop_start`), connects in the background and reconnects
with a growing delay (1 s to 10 s) after every loss, so a broker that is away costs the
table nothing: `publish` returns None while there is no connection and the publisher
sends again from the journal once it is back.
"""

from __future__ import annotations

import logging
import sys

from controller.surveillance.broker import (
    BrokerAddress,
    BrokerClient,
    BrokerError,
    topic_matches,
)

log = logging.getLogger(__name__)


class PahoClient(BrokerClient):
    def __init__(self, address: BrokerAddress, *, client_id: str,
                 will: tuple[str, bytes] | None = None, keepalive: int = 15,
                 session: bool = False) -> None:
        """`session`: keep a session on the broker (a monitor's): what was published for
        its subscriptions while it was away is delivered when it is back."""
        super().__init__()
        try:
            import paho.mqtt.client as mqtt
        except ImportError as error:  # pragma: no cover - a dependency of the package
            raise BrokerError(f"paho-mqtt is not installed ({error})") from None
        self._mqtt = mqtt
        self.address = address
        self._keepalive = keepalive
        self._session = session
        self._subscriptions: list[tuple[str, int, object]] = []
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                             protocol=mqtt.MQTTv5)
        if address.username:
            client.username_pw_set(address.username, address.password)
        if address.tls:
            try:
                client.tls_set(ca_certs=address.ca_file, certfile=address.cert_file,
                               keyfile=address.key_file)
            except (OSError, ValueError) as error:
                raise BrokerError(f"{address}: cannot use the TLS files ({error})") from None
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.reconnect_delay_set(min_delay=1, max_delay=10)
        # The publisher keeps at most its window of messages unacknowledged (the journal is
        # its queue), so paho's own queue stays that small.
        client.max_inflight_messages_set(100)
        client.on_connect = self._connected
        client.on_connect_fail = self._connect_failed
        client.on_disconnect = self._disconnected
        client.on_publish = self._published
        client.on_message = self._message
        self._client = client

    def start(self) -> None:
        properties = None
        if self._session:
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties
            properties = Properties(PacketTypes.CONNECT)
            properties.SessionExpiryInterval = 7 * 24 * 3600
        self._client.connect_async(self.address.host, self.address.port, self._keepalive,
                                   clean_start=not self._session, properties=properties)
        self._client.loop_start()

    def publish(self, topic, payload, *, qos=1, retain=False):
        if not self.connected:
            return None
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc != self._mqtt.MQTT_ERR_SUCCESS:
            return None
        return info.mid

    def subscribe(self, topic_filter, on_message, *, qos=1):
        self._subscriptions.append((topic_filter, qos, on_message))
        if self.connected:
            self._client.subscribe(topic_filter, qos=qos)

    def close(self) -> None:
        self.connected = False
        try:
            self._client.disconnect()
        finally:
            self._client.loop_stop()

    # -- paho's callbacks, on its network thread ---------------------------------------------

    def _connected(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            # A refused login (a wrong password, an unknown user) is an attempt that failed:
            # said once by whoever listens (`Reachability`), not at each retry.
            self.on_connect_fail(f"it refused the connection: {reason_code}")
            return
        self.connected = True
        for topic_filter, qos, _ in self._subscriptions:
            client.subscribe(topic_filter, qos=qos)
        self.on_connect()

    def _connect_failed(self, client, userdata) -> None:
        # paho calls this in its `except OSError:` without handing the error on: the reason
        # ("Connection refused", "Name or service not known") is found there.
        error = sys.exc_info()[1]
        self.on_connect_fail((error.strerror or str(error)) if isinstance(error, OSError)
                             else "no connection")

    def _disconnected(self, client, userdata, flags, reason_code, properties) -> None:
        was = self.connected
        self.connected = False
        if was:
            self.on_disconnect(str(reason_code))

    def _published(self, client, userdata, mid, reason_code, properties) -> None:
        self.on_ack(mid)

    def _message(self, client, userdata, message) -> None:
        for topic_filter, _, handler in self._subscriptions:
            if topic_matches(topic_filter, message.topic):
                handler(message.topic, message.payload)
