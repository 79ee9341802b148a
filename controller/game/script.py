"""The `sabot deal` input language: tokens in the order cards leave the shoe.

Whitespace-separated tokens, `#` starts a comment. A card code (`AS`, `10h`, `Td`), `^` before
a code for a card found face up in the shoe, `CUT`, `NMB`, `DISCLOSED`, `ACK`, `NEWSHOE`,
`COUNT` (the cards left after the shoe's last round counted out, rule 11.1). Beyond
DESIGN.md: `JOKER` (a joker left the shoe) and `UNREADABLE` (a card the camera could not
read), so that faults can be scripted too.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from contract import JOKER
from controller.errors import CardCodeError, InputError
from controller.game import observations as obs
from controller.game.cards import parse_card

# Why a scripted UNREADABLE card was not read: the table's fault says "unreadable card: "
# and this (it said "unreadable card: unreadable card" before stop 35; a journal keeps the
# reason its observation was recorded with, so an older one replays as it was).
SCRIPTED_UNREADABLE = "marked UNREADABLE in the script"

KEYWORDS = {
    "CUT": obs.Cut,
    "NMB": obs.NoMoreBets,
    "DISCLOSED": obs.Disclosed,
    "ACK": obs.Ack,
    "NEWSHOE": obs.NewShoe,
    "COUNT": obs.CountOut,
}


@dataclass(frozen=True)
class Step:
    """One token of a script and the observation it stands for."""

    line: int
    column: int
    token: str
    observation: obs.Observation


def parse_token(token: str) -> obs.Observation:
    upper = token.upper()
    if upper in KEYWORDS:
        return KEYWORDS[upper]()
    if upper == "JOKER":
        return obs.Unreadable(JOKER)
    if upper == "UNREADABLE":
        return obs.Unreadable(SCRIPTED_UNREADABLE)
    if upper.startswith("^"):
        return obs.Card(parse_card(token[1:]), face_up=True)
    return obs.Card(parse_card(token))


def parse_script(text: str, source: str = "<input>") -> list[Step]:
    """Every step of `text`; the first bad token raises InputError naming it and its place."""
    steps = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0]
        offset = 0
        for token in content.split():
            offset = content.index(token, offset)
            column = offset + 1
            offset += len(token)
            try:
                observation = parse_token(token)
            except CardCodeError as error:
                raise InputError(
                    f"{source}, line {line_number}, column {column}: token {token!r} is not "
                    f"a card code or keyword ({' '.join(KEYWORDS)} JOKER UNREADABLE; "
                    f"cards like AS 10H Td, ^ before a face-up card)"
                ) from error
            steps.append(Step(line_number, column, token, observation))
    return steps


def uses_no_more_bets(steps: list[Step]) -> bool:
    """DESIGN.md: if a script has no NMB at all, every round starts by itself."""
    return any(isinstance(step.observation, obs.NoMoreBets) for step in steps)


def format_script(observations: list[obs.Observation], per_line: int = 16) -> str:
    """The inverse of parse_script, for generated shoes."""
    tokens = [_token_of(o) for o in observations]
    return "\n".join(
        " ".join(tokens[i:i + per_line]) for i in range(0, len(tokens), per_line)
    ) + "\n"


def _token_of(observation: obs.Observation) -> str:
    if isinstance(observation, obs.Card):
        return ("^" if observation.face_up else "") + observation.card
    if isinstance(observation, obs.Unreadable):
        return "JOKER" if observation.reason == JOKER else "UNREADABLE"
    for keyword, cls in KEYWORDS.items():
        if isinstance(observation, cls):
            return keyword
    raise InputError(f"{observation!r} has no script token")


def read_input(path: str) -> tuple[str, str]:
    """The text of `path` (or stdin for '-') and the name to use in messages."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(), path
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
