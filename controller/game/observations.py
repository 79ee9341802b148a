"""What the table can observe: the inputs of `Table.apply`.

Small frozen records, each with a stable `kind` so the journal can store them as JSON and
replay them exactly (`to_dict` / `observation_from_dict`).
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields

from controller.errors import InputError
from controller.game.cards import parse_card


@dataclass(frozen=True)
class Card:
    """A card left the shoe. `face_up`: it was found face up in the shoe (rules 12.3, 12.4)."""

    card: str
    face_up: bool = False
    kind = "card"


@dataclass(frozen=True)
class Cut:
    """The plastic cutting card left the shoe (rules 9.7, 9.8)."""

    kind = "cut"


@dataclass(frozen=True)
class NoMoreBets:
    """The dealer announced "No more bets" (rule 8.2)."""

    kind = "no_more_bets"


@dataclass(frozen=True)
class Disclosed:
    """The card just drawn was exposed (rules 12.1(b), 12.2(b))."""

    kind = "disclosed"


@dataclass(frozen=True)
class Ack:
    """A supervisor acknowledged the fault: the offending card is set aside."""

    kind = "ack"


@dataclass(frozen=True)
class NewShoe:
    """New or reshuffled cards are in the shoe (rules 7.1, 7.6, 11.2); a burn follows."""

    kind = "new_shoe"


@dataclass(frozen=True)
class CountOut:
    """After the shoe's last round the dealer runs the cards left in it out through the
    reader, to be counted (rule 11.1 removes them; the count shows a card that left the
    shoe unseen, as one drawn stuck to another)."""

    kind = "count_out"


@dataclass(frozen=True)
class Unreadable:
    """Something left the shoe that could not be read with confidence (a joker, a smudge)."""

    reason: str = "unreadable card"
    kind = "unreadable"


@dataclass(frozen=True)
class EquipmentFault:
    """The shoe's own equipment failed (stale camera, dead link): halt until acknowledged."""

    reason: str
    kind = "equipment_fault"


@dataclass(frozen=True)
class SlidBack:
    """The card just read went back into the shoe for good (drawn half way and pushed
    back): it was counted where it was dealt, and will be read again when it is drawn."""

    card: str
    kind = "slid_back"


Observation = (Card | Cut | NoMoreBets | Disclosed | Ack | NewShoe | CountOut | Unreadable
               | EquipmentFault | SlidBack)

ALL_KINDS = (Card, Cut, NoMoreBets, Disclosed, Ack, NewShoe, CountOut, Unreadable,
             EquipmentFault, SlidBack)
_BY_KIND: dict[str, type] = {cls.kind: cls for cls in ALL_KINDS}


def to_dict(observation: Observation) -> dict:
    return {"kind": observation.kind, **asdict(observation)}


_FIELD_TYPES = {"str": str, "bool": bool}


def observation_from_dict(record: dict) -> Observation:
    """Inverse of `to_dict`; anything else (not an object, an unknown kind or field, a field
    missing or of the wrong type, a card that is no card code) is an InputError naming it:
    a journal's records come from a file anyone may have edited."""
    if not isinstance(record, dict):
        raise InputError(f"an observation is an object, not {type(record).__name__}")
    kind = record.get("kind")
    cls = _BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown observation kind {kind!r}")
    declared = {f.name: f for f in fields(cls)}
    extra = set(record) - set(declared) - {"kind"}
    if extra:
        raise InputError(f"observation {kind!r} has unknown fields {sorted(map(str, extra))}")
    values = {k: v for k, v in record.items() if k != "kind"}
    for name, declared_field in declared.items():
        if name not in values:
            if declared_field.default is MISSING:
                raise InputError(f"observation {kind!r} has no {name}")
            continue
        if type(values[name]) is not _FIELD_TYPES[declared_field.type]:
            raise InputError(f"observation {kind!r}: {name} must be {declared_field.type}, "
                             f"not {values[name]!r}")
    if cls in (Card, SlidBack) and parse_card(values["card"]) != values["card"]:
        raise InputError(f"observation {kind!r}: {values['card']!r} is not a card code as "
                         "the journal writes them")
    return cls(**values)
