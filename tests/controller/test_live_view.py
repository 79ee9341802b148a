"""The live view of `sabot simulate`: one shoe at a time (issue 9)."""

from rich.console import Console

from controller.game.table import Table
from controller.views.live import shoe_rounds, table_view


def _round(n, result):
    return {"event": "round", "round": n, "result": result, "void": False, "natural": False,
            "player": ["2H", "3D"], "banker": ["4H", "5D"], "player_total": 5,
            "banker_total": 9}


def test_a_new_shoe_clears_the_rounds_the_view_shows():
    first = shoe_rounds([], [_round(1, "banker"), _round(2, "player")])
    assert [r["round"] for r in first] == [1, 2]
    second = shoe_rounds(first, [{"event": "shoe_end"}, {"event": "new_shoe", "shoe": 2},
                                 _round(1, "tie")])
    assert [(r["round"], r["result"]) for r in second] == [(1, "tie")]
    assert [r["round"] for r in first] == [1, 2]  # the old list is not changed


def test_the_view_after_a_new_shoe_shows_no_hand_of_the_last_one():
    table = Table(decks=1, style="A", require_no_more_bets=False)
    console = Console(width=100, record=True)
    console.print(table_view("t", table.state, frozenset(), shoe_rounds(
        [_round(1, "banker")], [{"event": "new_shoe", "shoe": 2}])))
    text = console.export_text()
    assert "last: round" not in text and "4H" not in text
