"""The `sabot deal` input language: tokens in the order cards leave the shoe.

Whitespace-separated tokens, `#` starts a comment. A card code (`AS`, `10h`, `Td`), `^` before
a code for a card found face up in the shoe, `<` before the code of the card just read for
that card going back into the shoe (drawn half way and pushed back; its next reading is
not counted again), `CUT`, `NMB`, `DISCLOSED`, `ACK`, `NEWSHOE`,
`COUNT` (the cards left after the shoe's last round counted out, rule 11.1). Beyond
DESIGN.md: `JOKER` (a joker left the shoe), `UNREADABLE` (a card the camera could not
read) and `<X`, so that faults can be scripted too.
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
    if upper.startswith("<"):
        return obs.SlidBack(parse_card(token[1:]))
    return obs.Card(parse_card(token))


DEAL_WORDS = (f"{' '.join(KEYWORDS)} JOKER UNREADABLE; cards like AS 10H Td, ^ before a "
              "face-up card, < before a card pushed back")


def parse_script(text: str, source: str = "<input>", *, words: str = DEAL_WORDS) -> list[Step]:
    """Every step of `text`; the first bad token raises InputError naming it and its place,
    and `words`: what the input may say instead (a card order to enrol takes fewer)."""
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
                    f"a card code or keyword ({words})"
                ) from error
            steps.append(Step(line_number, column, token, observation))
    return steps


def uses_no_more_bets(steps: list[Step]) -> bool:
    """DESIGN.md: if a script has no NMB at all, every round starts by itself."""
    return any(isinstance(step.observation, obs.NoMoreBets) for step in steps)


def pushed_back(observations: list[obs.Observation], index: int) -> bool:
    """Whether the card at `index` is drawn half way and pushed back: the step after it is
    `<` of it. A face-down card only: the camera under a face-up one sees its back."""
    card = observations[index] if 0 <= index < len(observations) else None
    after = observations[index + 1] if index + 1 < len(observations) else None
    return (isinstance(card, obs.Card) and not card.face_up
            and isinstance(after, obs.SlidBack) and after.card == card.card)


def check_pushed_back(steps: list[Step], source: str) -> None:
    """A dealer at an emulated shoe pushes back only the card it has just drawn: `<X` right
    after a face-down X. Anything else is refused before the shoe starts, naming the token
    (`sabot deal` takes it, and halts the table for it)."""
    observations = [step.observation for step in steps]
    for index, step in enumerate(steps):
        if isinstance(step.observation, obs.SlidBack) and not pushed_back(observations,
                                                                          index - 1):
            raise InputError(
                f"{source}, line {step.line}, column {step.column}: token {step.token!r}: a "
                f"simulated dealer pushes back only the card just drawn, face down: put it "
                f"right after {step.observation.card}")


def format_script(observations: list[obs.Observation], per_line: int = 16) -> str:
    """The inverse of parse_script, for generated shoes."""
    tokens = [_token_of(o) for o in observations]
    return "\n".join(
        " ".join(tokens[i:i + per_line]) for i in range(0, len(tokens), per_line)
    ) + "\n"


def _token_of(observation: obs.Observation) -> str:
    if isinstance(observation, obs.Card):
        return ("^" if observation.face_up else "") + observation.card
    if isinstance(observation, obs.SlidBack):
        return "<" + observation.card
    if isinstance(observation, obs.Unreadable):
        return "JOKER" if observation.reason == JOKER else "UNREADABLE"
    for keyword, cls in KEYWORDS.items():
        if isinstance(observation, cls):
            return keyword
    raise InputError(f"{observation!r} has no script token")


def read_input(path: str) -> tuple[str, str]:
    """The text of `path` (or stdin for '-') and the name to use in messages. A byte order
    mark, which Windows' Notepad writes first, is no token (a trial, stop 52: "token
    '\\ufeffQS' is not a card code")."""
    if path == "-":
        return sys.stdin.read().removeprefix("\ufeff"), "<stdin>"
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return handle.read(), path
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a directory; give a card order file in it, or - for "
                         "standard input") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
