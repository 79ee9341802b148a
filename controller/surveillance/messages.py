"""What a table publishes, and how a monitor checks what it receives: the MQTT contract.

Topics (`<table>` is the config's `[table] id`):
- `sabot/<table>/event`: every journal event, QoS 1, in journal order:
  `{"table": ..., "journal": "9f2c41d07be3a815", "seq": 42, "ts": 1764590000.123456,
  "cause": 41, "event": "round", ...}` (the event's own keys after these five). Delivery is
  at least once: a consumer drops a `seq` it has already seen of that `journal`
  (`Journal.identity`: a table restarted with a new journal numbers its events from 1
  again; messages of tables before stop 47 have no `journal`).
- `sabot/<table>/state`: retained, after every batch of events: the table as it stands
  (`Publisher.state`), with its `journal` and `anchor`, the journal's newest signed head
  (`seq`, `hash`, `key`, `signature`, docs/security.md), or null when the journal is not
  signed.
- `sabot/<table>/status`: retained `online`, and `offline` as the Last Will or at a clean stop.
"""

from __future__ import annotations

import json
import math
import re

from contract import ALL_CARDS, LAMP_NAMES
from controller.errors import InputError
from controller.journal.signing import Anchor

ROOT = "sabot"
_CODES = frozenset(ALL_CARDS)
ONLINE, OFFLINE = b"online", b"offline"
ENVELOPE = ("table", "journal", "seq", "ts", "cause")
JOURNAL_ID = re.compile(r"^[0-9a-f]{16}$")  # `Journal.identity`
# A table id is one topic level: no "/", "+", "#", no spaces, not empty.
TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_PAYLOAD = 64 * 1024


class MessageError(InputError):
    """A received message is not one a shoe sends."""


def check_table_id(table: str, what: str = "table id") -> str:
    if not isinstance(table, str) or not TABLE_ID.match(table):
        raise InputError(f"{what} {table!r}: use 1-64 letters, digits, '.', '_' or '-' "
                         "(it is one level of the MQTT topic)")
    return table


def topic(table: str, kind: str) -> str:
    return f"{ROOT}/{table}/{kind}"


def event_message(table: str, journal: str | None, record) -> dict:
    """The message of one event record of the journal named `journal`."""
    return {"table": table, "journal": journal, "seq": record.seq, "ts": record.ts_us / 1e6,
            "cause": record.cause, **record.body}


def encode(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode()


def parse_topic(name: str) -> tuple[str, str] | None:
    """(table, kind) of a Sabot topic, None for anything else."""
    parts = name.split("/")
    if len(parts) != 3 or parts[0] != ROOT or parts[2] not in ("event", "state", "status"):
        return None
    if not TABLE_ID.match(parts[1]):
        return None
    return parts[1], parts[2]


def decode(name: str, payload: bytes) -> tuple[str, str, object]:
    """(table, kind, body) of a received message; MessageError names what is wrong. A body
    is a dict for event and state (the table in it must match the topic's), a str for
    status."""
    where = parse_topic(name)
    if where is None:
        raise MessageError(f"topic {name[:80]!r} is not sabot/<table>/event|state|status")
    table, kind = where
    if len(payload) > MAX_PAYLOAD:
        raise MessageError(f"{name}: {len(payload)} bytes, more than a shoe sends")
    if kind == "status":
        text = payload.decode("ascii", "replace")
        if payload not in (ONLINE, OFFLINE):
            raise MessageError(f"{name}: status {text[:20]!r} is neither online nor offline")
        return table, kind, text
    try:
        body = _DECODER.decode(payload.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise MessageError(f"{name}: not JSON ({error})") from None
    if not isinstance(body, dict):
        raise MessageError(f"{name}: a {type(body).__name__}, not an object")
    if body.get("table") != table:
        raise MessageError(f"{name}: says it is from table {str(body.get('table'))[:40]!r}")
    journal = body.get("journal")
    if journal is not None and not (isinstance(journal, str) and JOURNAL_ID.match(journal)):
        raise MessageError(f"{name}: journal {str(journal)[:40]!r} is not 16 hex digits")
    if kind == "event":
        _check_event(name, body)
    else:
        _check_number(name, body, "seq", integer=True)
        if body.get("anchor") is not None:
            try:
                Anchor.from_dict(body["anchor"], f"{name}: anchor")
            except InputError as error:
                raise MessageError(str(error)) from None
    return table, kind, body


def _check_event(name: str, body: dict) -> None:
    _check_number(name, body, "seq", integer=True)
    _check_number(name, body, "ts")
    if not isinstance(body.get("event"), str) or not body["event"].isidentifier():
        raise MessageError(f"{name}: no event name")
    for key, check in _SHAPES.get(body["event"], {}).items():
        if not check(body.get(key)):
            raise MessageError(f"{name}: a {body['event']} event whose {key} is "
                               f"{str(body.get(key))[:40]!r}")


def _cards(value) -> bool:
    return isinstance(value, list) and len(value) <= 416 and all(
        isinstance(c, str) and c in _CODES for c in value)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**6


# What the monitor reads of the events it draws: a message that claims to be one of them
# must carry them as a shoe would.
_SHAPES: dict[str, dict] = {
    "card": {"card": lambda v: isinstance(v, str) and v in _CODES,
             "hand": lambda v: v in ("player", "banker", None), "round": _whole},
    "burn": {"cards": _cards},
    "round": {"round": _whole, "player": _cards, "banker": _cards,
              "result": lambda v: v in ("banker", "player", "tie"),
              "void": lambda v: isinstance(v, bool)},
    "lamps": {"on": lambda v: isinstance(v, list) and all(n in LAMP_NAMES for n in v)},
    "new_shoe": {"shoe": _whole},
}


def _check_number(name: str, body: dict, key: str, *, integer: bool = False) -> None:
    value = body.get(key)
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) \
            or value < 0:
        raise MessageError(f"{name}: {key} is not a non-negative number")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)  # NaN and Infinity are refused
