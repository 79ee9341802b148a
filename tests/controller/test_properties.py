"""Properties over random shoes (hypothesis): hand sizes, lamps, card accounting, replay."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game import observations as obs
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.game.state import ENDED
from controller.game.table import Table

EXTRAS = [obs.NoMoreBets(), obs.Disclosed(), obs.Ack(), obs.Cut(), obs.Unreadable("joker"),
          obs.NewShoe()]


@st.composite
def messy_shoes(draw):
    """A shuffled shoe with random irregular tokens and face-up cards sprinkled in."""
    decks = draw(st.sampled_from([1, 2, 6, 8]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    stack = shuffled_shoe(decks, seed=seed)
    noise = draw(st.floats(0.0, 0.2))
    sequence = []
    for item in stack:
        if rng.random() < noise:
            sequence.append(rng.choice(EXTRAS))
        if isinstance(item, obs.Card) and rng.random() < noise / 4:
            item = obs.Card(item.card, face_up=True)
        sequence.append(item)
        if isinstance(item, obs.Card) and not item.face_up and rng.random() < noise / 4:
            # Drawn half way and pushed back, then drawn again: one card, read twice.
            sequence += [obs.SlidBack(item.card), *[obs.Ack()] * rng.randrange(2), item]
    uses_nmb = draw(st.booleans())
    return decks, uses_nmb, sequence


def play(decks, uses_nmb, sequence):
    table = Table(decks, require_no_more_bets=uses_nmb)
    log = []
    for observation in sequence:
        events = table.apply(observation)
        log.append((events, table.lamps()))
        if table.state.phase == ENDED:  # nothing may be left on the table at the end
            assert not table.state.held and not table.state.player and not table.state.banker
    return table, log


@settings(max_examples=60, deadline=None)
@given(messy_shoes())
def test_never_more_than_three_cards_a_hand(shoe):
    _, log = play(*shoe)
    for events, _ in log:
        for event in events:
            if event["event"] == "round":
                assert 2 <= len(event["player"]) <= 3
                assert 2 <= len(event["banker"]) <= 3


@settings(max_examples=60, deadline=None)
@given(messy_shoes())
def test_lamps_never_show_draw_and_stand_for_one_hand(shoe):
    _, log = play(*shoe)
    for _, lit in log:
        assert not {"player_draw", "player_stand"} <= lit
        assert not {"banker_draw", "banker_stand"} <= lit


@settings(max_examples=60, deadline=None)
@given(messy_shoes())
def test_every_card_is_accounted_for_exactly_once(shoe):
    table, _ = play(*shoe)
    sequence = shoe[2]
    read_again = sum(isinstance(o, obs.SlidBack) for o in sequence)
    drawn = sum(isinstance(o, (obs.Card, obs.Unreadable)) for o in sequence) - read_again
    assert sum(table.state.ledger.values()) + table.state.cards_in_play == drawn


@settings(max_examples=30, deadline=None)
@given(messy_shoes())
def test_replay_yields_the_same_events_and_state(shoe):
    first, first_log = play(*shoe)
    second, second_log = play(*shoe)
    assert first_log == second_log
    assert first.state == second.state


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 6, 8]))
def test_a_clean_shoe_ends_with_last_coup_and_no_irregularity(seed, decks):
    table, log = play(decks, False, dealt_until_shoe_end(shuffled_shoe(decks, seed=seed), decks))
    events = [e for batch, _ in log for e in batch]
    names = [e["event"] for e in events]
    assert names.count("burn") == 1
    assert names.count("last_coup") == 1
    assert names.count("shoe_end") == 1
    assert "irregularity" not in names and "fault" not in names
    (last_coup,) = [e for e in events if e["event"] == "last_coup"]
    (end,) = [e for e in events if e["event"] == "shoe_end"]
    assert last_coup["round"] == end["rounds"]  # exactly the announced round was the last
    after = names[names.index("last_coup"):]
    assert after.count("round") == 1  # 9.7: announced after its round; 9.8: before it
