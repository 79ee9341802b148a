"""The five scoreboard roads (issue 10): hand-built sequences with known roads, and a property
that the derived roads follow from the big road's columns."""

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.roads import (
    RoadCell,
    ask,
    bead_plate,
    big_road,
    derived_road,
    derived_roads,
    layout,
    leading_ties,
    parse_results,
    roads_json,
    streak_columns,
    width,
)


def r(text: str) -> list[str]:
    return parse_results(text)


def test_bead_plate_fills_columns_of_six():
    plate = bead_plate(["banker"] * 7 + ["tie"])
    assert plate[(0, 5)] == "banker" and plate[(1, 0)] == "banker" and plate[(1, 1)] == "tie"
    assert width(plate) == 2


def test_big_road_new_column_on_change_ties_on_last_cell():
    road = big_road(r("BBTTPB"))
    assert road[(0, 0)].result == "banker" and road[(0, 0)].ties == 0
    assert road[(0, 1)].ties == 2  # a tie after a streak marks the streak's last win
    assert road[(1, 0)].result == "player"
    assert road[(2, 0)].result == "banker"
    assert width(road) == 3


def test_big_road_keeps_ties_at_the_start_apart():
    results = r("TTBP")
    road = big_road(results)
    assert leading_ties(results) == 2
    assert road[(0, 0)].ties == 0 and road[(1, 0)].ties == 0
    assert roads_json(results)["leading_ties"] == 2
    assert leading_ties(r("TTT")) == 3 and big_road(r("TTT")) == {}


def test_big_road_dragon_tail_turns_right_at_row_six():
    road = big_road(r("BBBBBBBBP"))
    assert [road[(0, row)].result for row in range(6)] == ["banker"] * 6
    assert road[(1, 5)].result == "banker" and road[(2, 5)].result == "banker"
    assert road[(1, 0)].result == "player"  # the next column starts beside the first


def test_big_road_dragon_tail_turns_at_an_occupied_cell():
    # Seven bankers leave a tail along row 6 under columns 1 and 2; the player streak of six
    # in column 1 meets it at row 6 and turns right along row 5.
    road = big_road(r("BBBBBBB" + "PPPPPP"))
    assert road[(1, 5)].result == "banker"
    assert [road[(1, row)].result for row in range(5)] == ["player"] * 5
    assert road[(2, 4)].result == "player"  # the sixth player turned right above the tail


def test_derived_roads_start_at_their_first_comparison():
    # Columns: B x2, P x3, B x1, P x2 (streaks [2, 3, 1, 2]).
    results = r("BBPPPBPP")
    assert streak_columns(results) == [2, 3, 1, 2]
    # Big Eye Boy starts at row 2 of column 2 (index 1): column 1 had length 2 -> red;
    # row 3 = 2 + 1 -> blue; B opens column 3: columns 2, 1 lengths 3, 2 differ -> blue;
    # P opens column 4: columns 3, 2 lengths 1, 3 differ -> blue; row 2 of column 4
    # against column 3 (length 1): 2 = 1 + 1 -> blue.
    assert derived_road(results, 1) == ["red", "blue", "blue", "blue", "blue"]
    # Small Road: row 2 of column 2 has no column two before it, nor has the opening of
    # column 3; it starts at the opening of column 4: columns 3, 1 are 1, 2 -> blue; then
    # row 2 of column 4 against column 2 (length 3): red.
    assert derived_road(results, 2) == ["blue", "red"]
    # Cockroach Pig starts at row 2 of column 4 (index 3) against column 1 (length 2): red.
    assert derived_road(results, 3) == ["red"]


def test_derived_roads_ignore_ties():
    assert derived_roads(r("BTBPTTPPB")) == derived_roads(r("BBPPPB"))


def test_a_road_whose_columns_repeat_is_all_red():
    results = r("BBPPBBPPBBPP")
    assert set(derived_road(results, 1)) == {"red"}


def test_ask_says_what_each_road_would_mark_next():
    results = r("BBPPPB")
    prediction = ask(results)
    assert prediction["banker"] == {"big_eye_boy": "red", "small_road": "red",
                                    "cockroach_pig": None}
    assert prediction["player"] == {"big_eye_boy": "blue", "small_road": "blue",
                                    "cockroach_pig": None}
    for winner, name_marks in prediction.items():
        after = derived_roads([*results, winner])
        for name, mark in name_marks.items():
            assert (after[name][-1] if len(after[name]) > len(derived_roads(results)[name])
                    else None) == mark


def test_layout_of_marks_is_the_big_road_layout():
    marks = [RoadCell(m) for m in ["red", "red", "blue", "red"]]
    grid = layout(marks)
    assert grid[(0, 0)].result == grid[(0, 1)].result == "red"
    assert grid[(1, 0)].result == "blue" and grid[(2, 0)].result == "red"


def _by_columns(results: list[str], k: int) -> list[str]:
    """The derived road recomputed from the big road's streak columns alone."""
    columns = streak_columns(results)
    marks = []
    for c, length in enumerate(columns):
        for row in range(1, length + 1):
            if row == 1:
                if c - 1 - k >= 0:
                    marks.append("red" if columns[c - 1] == columns[c - 1 - k] else "blue")
            elif c - k >= 0:
                marks.append("blue" if row == columns[c - k] + 1 else "red")
    return marks


@given(st.lists(st.sampled_from(["banker", "player", "tie"]), max_size=90))
def test_property_derived_roads_follow_from_the_big_road_columns(results):
    for k in (1, 2, 3):
        assert derived_road(results, k) == _by_columns(results, k)
    # Every win is on the big road once, and its columns tell the streaks.
    road = big_road(results)
    assert len(road) == sum(x != "tie" for x in results)
    assert sum(cell.ties for cell in road.values()) + leading_ties(results) == \
        results.count("tie")


def test_parse_results_names_a_wrong_letter():
    assert parse_results("b p t") == ["banker", "player", "tie"]
    try:
        parse_results("BPX")
    except ValueError as error:
        assert "'X' at position 3" in str(error)
    else:
        raise AssertionError("X was accepted")


def test_sabot_roads_json_contract():
    out = subprocess.run([sys.executable, "-m", "controller.cli", "roads", "BBPPPB", "--json"],
                         capture_output=True, text=True, check=True).stdout
    roads = json.loads(out)
    assert roads["bead_plate"] == [["B", "B", "P", "P", "P", "B"]]
    assert roads["big_road"][0][:3] == [{"winner": "B", "ties": 0},
                                         {"winner": "B", "ties": 0}, None]
    assert [len(column) for column in roads["big_road"]] == [6, 6, 6]
    assert roads["big_eye_boy"] == ["red", "blue", "blue"]
    assert roads["small_road"] == [] and roads["cockroach_pig"] == []


def test_sabot_roads_refuses_a_wrong_letter():
    done = subprocess.run([sys.executable, "-m", "controller.cli", "roads", "BPQ"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "'Q' at position 3 is not a result" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["results.txt", "shoes/3", "profile.npz"])
def test_sabot_roads_says_a_file_name_is_no_results(name):
    """A trial (stop 61): a file's name was read as letters ("'n' at position 1 is not a
    result"), and a lower-case b in it passed as the banker."""
    done = subprocess.run([sys.executable, "-m", "controller.cli", "roads", name],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert f"{name!r} looks like a file's name" in done.stderr
    assert f"`sabot roads - < {name}`" in done.stderr


def test_sabot_roads_draws_text():
    out = subprocess.run([sys.executable, "-m", "controller.cli", "roads", "TBBT"],
                         capture_output=True, text=True, check=True).stdout
    assert "big road (1 tie before the first win):" in out
    assert "B1" in out


def _roads_of(stdin: str, monkeypatch, capsys, *options: str):
    import io  # noqa: PLC0415

    from controller.cli import main  # noqa: PLC0415

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["roads", "-", *options])
    return status, capsys.readouterr()


def test_sabot_roads_reads_the_event_lines_of_deal_and_replay(monkeypatch, capsys):
    """An auditor's trial (stop 47): the roads of a journaled shoe took retyping its results;
    `sabot replay J --shoe N --json | sabot roads -` draws them (the last shoe's rounds,
    void hands left out as on the table's scoreboard)."""
    lines = [{"event": "new_shoe", "shoe": 1, "decks": 8, "style": "A"},
             {"event": "round", "round": 1, "result": "banker", "void": False},
             {"event": "new_shoe", "shoe": 2, "decks": 8, "style": "A"},
             {"event": "round", "round": 1, "result": "player", "void": False},
             {"event": "round", "round": 2, "result": "banker", "void": True},
             {"event": "card", "card": "AS", "hand": "player", "round": 3},
             {"event": "round", "round": 3, "result": "tie", "void": False},
             {"event": "round", "round": 4, "result": "player", "void": False}]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    status, out = _roads_of(text, monkeypatch, capsys, "--json")
    assert status == 0
    assert json.loads(out.out)["bead_plate"] == [["P", "T", "P", None, None, None]]
    assert "2 shoes in the input: the roads of the last" in out.err


def test_sabot_roads_names_the_event_line_it_cannot_read(monkeypatch, capsys):
    status, out = _roads_of('{"event": "new_shoe"}\nnot json\n', monkeypatch, capsys)
    assert status == 2
    assert "line 2 is not a JSON event ('not json')" in out.err
    status, out = _roads_of('{"event": "round", "result": "dragon"}\n', monkeypatch, capsys)
    assert status == 2
    assert "line 1: a round whose result is 'dragon', not banker, player or tie" in out.err
    # Not a word at all (a review: a list ended in an internal error).
    status, out = _roads_of('{"event": "round", "result": ["banker"]}\n', monkeypatch, capsys)
    assert status == 2 and "line 1: a round whose result is ['banker']" in out.err
