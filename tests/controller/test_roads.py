from controller.game.roads import bead_plate, big_road, width


def test_bead_plate_fills_columns_of_six():
    plate = bead_plate(["banker"] * 7 + ["tie"])
    assert plate[(0, 5)] == "banker" and plate[(1, 0)] == "banker" and plate[(1, 1)] == "tie"
    assert width(plate) == 2


def test_big_road_new_column_on_change_ties_on_last_cell():
    road = big_road(["tie", "banker", "banker", "tie", "tie", "player", "banker"])
    assert road[(0, 0)].result == "banker" and road[(0, 0)].ties == 1  # leading tie
    assert road[(0, 1)].ties == 2
    assert road[(1, 0)].result == "player"
    assert road[(2, 0)].result == "banker"
    assert width(road) == 3


def test_big_road_dragon_tail_turns_right():
    road = big_road(["banker"] * 8 + ["player"])
    assert [road[(0, r)].result for r in range(6)] == ["banker"] * 6
    assert road[(1, 5)].result == "banker" and road[(2, 5)].result == "banker"
    assert road[(1, 0)].result == "player"  # the next column starts beside the first
