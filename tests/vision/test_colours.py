"""A colour as an operator names it (`--cut-colour`): in OpenCV's order, BGR."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.colours import NAMED, parse_colour
from vision.errors import DeckError


def test_a_name_is_its_rgb_in_bgr_order_whatever_its_case():
    red, green, blue = NAMED["yellow"]
    assert parse_colour("Yellow") == parse_colour(" yellow ") == (blue, green, red)
    assert parse_colour("grey") == parse_colour("gray")


@given(st.tuples(*(st.integers(0, 255),) * 3))
def test_hex_and_a_triple_give_the_same_colour(rgb):
    red, green, blue = rgb
    hexed = f"{red:02x}{green:02x}{blue:02x}"
    assert parse_colour(f"#{hexed}") == parse_colour(hexed.upper()) \
        == parse_colour(f"{red},{green},{blue}") == (blue, green, red)


@pytest.mark.parametrize("text, says", [
    ("mauve", "colour 'mauve': give a name (black, blue, brown,"),
    ("#12345", "#rrggbb (#d02030) or red,green,blue (208,32,48)"),
    ("1,2", "colour '1,2': give a name"),
    ("1,2,x", "colour '1,2,x': give a name"),
    ("10,256,0", "colour '10,256,0': 256 is not 0-255"),
    ("-1,0,0", "colour '-1,0,0': -1 is not 0-255"),
])
def test_a_colour_not_understood_names_the_text_and_what_to_give(text, says):
    with pytest.raises(DeckError) as error:
        parse_colour(text)
    assert says in str(error.value)
    assert isinstance(error.value, ValueError)


def test_a_named_deck_with_a_cut_colour_deals_a_plain_cut_card_of_it_and_keeps_its_cards():
    """`--deck` and `--cut-colour` of simulate and emulate-shoe: one way to name a design."""
    from vision.decks import load_deck, named_deck, synthetic_deck

    assert named_deck("synthetic") is synthetic_deck()
    assert named_deck("shared").name == "vector-playing-cards"
    assert named_deck("gnome-berlin") is load_deck("gnome-berlin")
    red = named_deck("gnome-berlin", parse_colour("#c81e28"))
    cut = red.image("CUT")
    opaque = cut[:, :, 3] == 255
    assert opaque.mean() > 0.9
    assert {tuple(int(v) for v in px) for px in cut[opaque][:, :3]} == {(0x28, 0x1e, 0xc8)}
    assert red.image("KH") is load_deck("gnome-berlin").image("KH")
    with pytest.raises(DeckError, match="does not exist"):
        named_deck("no-such-design")
