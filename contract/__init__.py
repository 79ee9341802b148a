"""The names every package shares, defined once (DESIGN.md's contracts).

`controller`, `vision`, `firmware_bridge` and `hardware` all import them from here; this
package imports nothing. The order of LAMP_NAMES is also the bit order of the serial link's
LAMPS message, and BUTTON_NAMES the order of its button ids 1..5 (docs/protocol.md).
"""

LAMP_NAMES = (
    "player_draw", "player_stand", "banker_draw", "banker_stand", "player_win",
    "banker_win", "tie", "last_coup", "no_bets", "shuffle", "fault",
)  # fmt: skip
DRAW_STAND = ("player_draw", "player_stand", "banker_draw", "banker_stand")
BUTTON_NAMES = ("no_more_bets", "card_disclosed", "acknowledge", "new_shoe", "count_out")

# Card codes: a rank then a suit, upper case, "10" for ten (`AS`, `10H`, `QD`).
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
ALL_CARDS = tuple(rank + suit for suit in SUITS for rank in RANKS)

# The reason of an unreadable card that was seen to be a joker: not one of the shoe's cards,
# so the table sets it aside without counting it (the camera's tracker and `sabot deal`'s
# JOKER both say it with this word).
JOKER = "joker"
