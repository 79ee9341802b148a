"""One shoe of a table as the monitor shows it: its rounds, its irregularities, faults and
announcements, its `ShoeTally`, and the roads drawn from its results by
`controller.game.roads` (the same module as the terminal's, the report's and `sabot
roads`). Pure."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.game import roads
from controller.surveillance.tally import ShoeTally


@dataclass
class Shoe:
    number: int
    tally: ShoeTally
    journal: str | None = None  # of the messages it came in (None: the table names none)
    rounds: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)  # irregularities, faults, announcements
    started: float | None = None
    ended: float | None = None
    # Seen from its beginning (its `new_shoe` event, or its burn), None before anything of
    # it was dealt: a monitor started after a shoe began sees the rest of it only.
    whole: bool | None = None

    @property
    def dealt(self) -> bool:
        """Whether anything happened in it: a round, a card, a note."""
        return bool(self.rounds or self.tally.drawn or self.notes)

    def summary(self) -> dict:
        return {"shoe": self.number, "journal": self.journal, "started": self.started,
                "ended": self.ended, "rounds": len(self.rounds),
                "partial": self.whole is False, **counts(self.tally.summary())}

    def detail(self) -> dict:
        results = list(self.tally.results)
        drawn = roads.roads_json(results, self.tally.pairs)
        return {**self.summary(),
                "tally": self.tally.summary(),
                "roads": {**drawn, "boards": boards(results)},
                "round_list": self.rounds,
                "notes": self.notes}


def boards(results: list[str]) -> dict:
    """The derived roads laid out as on a board (columns of six), by the roads' own layout."""
    return {name: [[cell.result if cell else None for cell in column] for column in
                   roads.as_columns(roads.layout([roads.RoadCell(m) for m in marks]))]
            for name, marks in roads.derived_roads(results).items()}


def counts(tally: dict) -> dict:
    keys = ("banker", "player", "tie", "player_pairs", "banker_pairs", "naturals", "void")
    return {key: tally[key] for key in keys}
