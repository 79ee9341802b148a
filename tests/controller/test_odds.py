"""The exact enumeration of one round reproduces the published baccarat probabilities."""

import pytest

from controller.game.odds import round_probabilities

PUBLISHED = {
    8: {"banker": 0.458597, "player": 0.446247, "tie": 0.095156},
    6: {"banker": 0.458653, "player": 0.446279, "tie": 0.095069},
    1: {"banker": 0.459624, "player": 0.446760, "tie": 0.093615},
}


@pytest.mark.parametrize("decks", sorted(PUBLISHED))
def test_tableau_enumeration_matches_published_odds(decks):
    computed = round_probabilities(decks)
    assert sum(computed.values()) == pytest.approx(1.0, abs=1e-12)
    for outcome, published in PUBLISHED[decks].items():
        assert round(computed[outcome], 6) == pytest.approx(published, abs=1.5e-6), outcome
