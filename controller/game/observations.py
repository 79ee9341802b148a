"""What the table can observe: the inputs of `Table.apply`.

Small frozen records, each with a stable `kind` so the journal can store them as JSON and
replay them exactly (`to_dict` / `observation_from_dict`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from controller.errors import InputError


@dataclass(frozen=True)
class Card:
    """A card left the shoe. `face_up`: it was found face up in the shoe (rules 12.3, 12.4)."""

    card: str
    face_up: bool = False
    kind: ClassVar[str] = "card"


@dataclass(frozen=True)
class Cut:
    """The plastic cutting card left the shoe (rules 9.7, 9.8)."""

    kind: ClassVar[str] = "cut"


@dataclass(frozen=True)
class NoMoreBets:
    """The dealer announced "No more bets" (rule 8.2)."""

    kind: ClassVar[str] = "no_more_bets"


@dataclass(frozen=True)
class Disclosed:
    """The card just drawn was exposed (rules 12.1(b), 12.2(b))."""

    kind: ClassVar[str] = "disclosed"


@dataclass(frozen=True)
class Ack:
    """A supervisor acknowledged the fault: the offending card is set aside."""

    kind: ClassVar[str] = "ack"


@dataclass(frozen=True)
class NewShoe:
    """New or reshuffled cards are in the shoe (rules 7.1, 7.6, 11.2); a burn follows."""

    kind: ClassVar[str] = "new_shoe"


@dataclass(frozen=True)
class Unreadable:
    """Something left the shoe that could not be read with confidence (a joker, a smudge)."""

    reason: str = "unreadable card"
    kind: ClassVar[str] = "unreadable"


@dataclass(frozen=True)
class EquipmentFault:
    """The shoe's own equipment failed (stale camera, dead link): halt until acknowledged."""

    reason: str
    kind: ClassVar[str] = "equipment_fault"


Observation = Card | Cut | NoMoreBets | Disclosed | Ack | NewShoe | Unreadable | EquipmentFault

ALL_KINDS = (Card, Cut, NoMoreBets, Disclosed, Ack, NewShoe, Unreadable, EquipmentFault)
_BY_KIND: dict[str, type] = {cls.kind: cls for cls in ALL_KINDS}


def to_dict(observation: Observation) -> dict:
    return {"kind": observation.kind, **asdict(observation)}


def observation_from_dict(record: dict) -> Observation:
    """Inverse of `to_dict`; an unknown kind or field is an InputError naming it."""
    kind = record.get("kind")
    cls = _BY_KIND.get(kind)
    if cls is None:
        raise InputError(f"unknown observation kind {kind!r}")
    names = {f.name for f in fields(cls)}
    extra = set(record) - names - {"kind"}
    if extra:
        raise InputError(f"observation {kind!r} has unknown fields {sorted(extra)}")
    return cls(**{k: v for k, v in record.items() if k != "kind"})
