import pytest

from controller.game.script import parse_script, uses_no_more_bets
from controller.game.table import Table

BURN = "AS 2C"  # an ace is shown, one more card burned (rules 7.4, 7.5)


def run_script(text: str, decks: int = 8, style: str = "A", burn: bool = True):
    """(table, events) after dealing `text`, preceded by a two-card burn unless told not to."""
    steps = parse_script((BURN + "\n" if burn else "") + text)
    table = Table(decks, style, require_no_more_bets=uses_no_more_bets(steps))
    events = []
    for step in steps:
        events.extend(table.apply(step.observation))
    return table, events


def of_kind(events, kind):
    return [e for e in events if e["event"] == kind]


@pytest.fixture
def deal():
    return run_script
