"""The game, pure: cards, tableau, the table state machine (`Table.apply(observation) -> events`),
lamps as a function of the state, roads, odds, the `sabot deal` script language, shuffled
shoes. No I/O, clock or threads; imports nothing of the other rooms.
"""
