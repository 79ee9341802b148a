"""`sabot shuffle`: a shoe any table can deal, and can deal again."""

import json

from controller.cli import main


def _shuffle(capsys, *args) -> tuple[int, str, str]:
    status = main(["shuffle", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_rule_7_4_a_cutting_card_the_burn_could_draw_is_refused(capsys):
    status, out, err = _shuffle(capsys, "--decks", "1", "--cut", "42")
    assert status == 2 and out == ""
    assert "--cut 42: a 1-deck shoe has 52 cards, so the cutting card goes at most 41" in err


def test_rule_7_4_the_deepest_cut_allowed_is_dealt_without_a_fault(capsys, monkeypatch):
    # Seed 1 shows a jack first: the burn takes eleven cards, the most it can, and the
    # cutting card is the next, the first of round 1 (rule 9.8).
    status, shoe, _ = _shuffle(capsys, "--decks", "1", "--cut", "41", "--seed", "1")
    assert status == 0
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(shoe))
    assert main(["deal", "-", "--decks", "1", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [len(e["cards"]) for e in events if e["event"] == "burn"] == [11]
    assert [e["rule"] for e in events if e["event"] == "cut_card"] == ["9.8"]
    assert not any(e["event"] in ("fault", "irregularity") for e in events)
    assert sum(e["event"] == "shoe_end" for e in events) == 1


def test_a_shoe_shuffled_without_a_seed_names_the_seed_that_shuffles_it_again(capsys):
    status, first, _ = _shuffle(capsys, "--decks", "2")
    header = first.splitlines()[0]
    assert status == 0 and header.startswith("# 2-deck shoe, seed ")
    seed = header.rsplit(" ", 1)[1]
    assert seed.isdigit()  # not "None"
    assert _shuffle(capsys, "--decks", "2", "--seed", seed)[1] == first
