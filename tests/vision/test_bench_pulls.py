"""`bench.pulls` draws cards a little and pushes them back over every surround, then deals
them, and counts what the table would see: caught, halted, read once, counted twice
(never)."""

from __future__ import annotations

from bench.pulls import pull_design, pull_outcome
from vision.events import CardSeen, SlidBack, Unreadable
from vision.synth import SURROUNDS


def test_a_pull_is_caught_halted_read_once_or_counted_twice():
    seen = CardSeen("7C", False, 0)
    assert pull_outcome([seen, SlidBack("7C", 4), seen], "7C") == "caught"
    assert pull_outcome([Unreadable("no two frames agreed on the card", 0), seen],
                        "7C") == "halted"
    assert pull_outcome([seen], "7C") == "once"
    assert pull_outcome([seen, seen], "7C") == "twice"
    assert pull_outcome([CardSeen("7S", False, 0)], "7C") == "wrong"


def test_no_pull_of_the_built_in_design_over_any_surround_is_counted_twice(
        synth_deck, synth_reader):
    ticks = []
    counts = pull_design(synth_deck, synth_reader, pulls=2 * len(SURROUNDS), severity=1.0,
                         seed=8, advance=lambda: ticks.append(1))
    assert counts["pulls"] == len(ticks) == 2 * len(SURROUNDS)
    assert counts["twice"] == counts["wrong"] == 0, counts["missed"]
    assert counts["caught"] + counts["halted"] + counts["once"] == counts["pulls"]
