"""A shoe's statistics from its events (`controller.surveillance.tally`): what a scoreboard
shows beside the roads, and the cards left of each rank."""

from controller.game.script import parse_script, uses_no_more_bets
from controller.game.table import Table
from controller.surveillance.tally import ShoeTally


def tally_of(script: str, decks: int = 1) -> tuple[ShoeTally, Table]:
    steps = parse_script(script)
    table = Table(decks, require_no_more_bets=uses_no_more_bets(steps))
    tally = ShoeTally()
    tally.add({"event": "new_shoe", "shoe": 1, "decks": decks})
    for step in steps:
        for event in table.apply(step.observation):
            tally.add(event)
    return tally, table


def left(tally: ShoeTally) -> dict[str, int]:
    return dict(tally.cards_left_by_rank())


def test_cards_drawn_while_the_table_is_halted_leave_the_shoe_too():
    """A surveillance officer's trial (stop 53): three cards drawn after a joker, set aside
    in faults, stayed in the cards left of their ranks (the row summed to 3 more than the
    table's cards left)."""
    tally, table = tally_of("AS 2C 2H 3D JOKER 9C 4H KS ACK")
    assert (left(tally)["9"], left(tally)["4"], left(tally)["K"]) == (3, 3, 3)
    assert sum(left(tally).values()) == table.state.cards_left == 52 - 7
    assert tally.summary()["unread"] == 0


def test_a_copy_of_a_card_beyond_the_decks_is_no_card_of_the_shoe():
    """The table does not count a fifth copy (a card beyond the shoe's decks): nor does the
    tally, though it is set aside as the cards drawn while halted are."""
    tally, table = tally_of("AS 2C 2H 3D 4H 5D 9C ACK 9C ACK 2S", decks=1)
    assert left(tally)["9"] == 3  # one 9C of the shoe; the copy is not
    assert sum(left(tally).values()) == table.state.cards_left


def test_cards_not_read_are_counted_apart_from_any_rank():
    """An unreadable card left the shoe, rank unknown; one burned unread as well (rule
    7.4(b)): the page says how many, where the ranks would sum past the cards left."""
    tally, table = tally_of("5S 2C UNREADABLE ACK 4D 6C 8D 2H 3D UNREADABLE ACK 4H 5D 9S")
    summary = tally.summary()
    assert summary["unread"] == 2
    assert sum(left(tally).values()) - summary["unread"] == table.state.cards_left
