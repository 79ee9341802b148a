"""The table events of two runs side by side: the first one that differs, named.

For `sabot playback --expect`: a recording played again (a new firmware, camera or Sabot
version) must give the table the events it gave before. The expected events come from a
journal or from JSON event lines (`sabot deal --json`, `sabot replay --json`, `sabot
simulate --json`); what only a command prints about its own run (its statistics, where the
input ended) is left out of both sides.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.errors import InputError, JournalError
from controller.journal.replay import settings_of_meta
from controller.journal.store import Journal

SQLITE_MAGIC = b"SQLite format 3\x00"
NOT_TABLE_EVENTS = {"stats", "input_end"}  # about a command's run, not the table's


def journal_events(path: str | Path) -> list[dict]:
    """The events a journal holds, headed by its first shoe's `new_shoe` as `sabot deal`
    prints it."""
    events: list[dict] = []
    with Journal(str(path), create=False) as journal:
        for record in journal.records():
            if record.kind == "meta":
                settings = settings_of_meta(record, str(path))
                events.append({"event": "new_shoe", "shoe": 1, "decks": settings["decks"],
                               "style": settings["style"]})
            elif record.kind == "event" and record.body.get("event") not in NOT_TABLE_EVENTS:
                events.append(record.body)
    return events


def expected_events(path: str | Path) -> list[dict]:
    """A journal's events, or a file of JSON event lines."""
    file = Path(path)
    try:
        with file.open("rb") as opened:
            magic = opened.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise InputError(f"{file}: cannot read ({error.strerror})") from None
    if magic == SQLITE_MAGIC:
        try:
            return journal_events(file)
        except JournalError as error:
            raise InputError(str(error)) from None
    events = []
    text = file.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{file}, line {number}: not a JSON event ({error.msg})") from None
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            raise InputError(f"{file}, line {number}: not an event (no \"event\" key)")
        if event["event"] not in NOT_TABLE_EVENTS:
            events.append(event)
    return events


def first_difference(expected: list[dict], got: list[dict],
                     names: tuple[str, str] = ("expected", "got")) -> str | None:
    """None when the two are the same; else what differs first, in words (`names`: what
    the two lists are called there)."""
    for number, (want, have) in enumerate(zip(expected, got, strict=False), start=1):
        if want != have:
            keys = sorted(k for k in set(want) | set(have) if want.get(k) != have.get(k))
            have = {k: have[k] for k in want if k in have} | have  # in the same key order
            return (f"event {number} differs in {', '.join(keys)}: {names[0]} "
                    f"{_short(want)}, {names[1]} {_short(have)}")
    if len(got) < len(expected):
        return (f"{len(expected) - len(got)} expected event(s) missing after event "
                f"{len(got)}: the first is {_short(expected[len(got)])}")
    if len(got) > len(expected):
        return (f"{len(got) - len(expected)} event(s) more than expected after event "
                f"{len(expected)}: the first is {_short(got[len(expected)])}")
    return None


def _short(event: dict, limit: int = 300) -> str:
    text = json.dumps(event, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 3] + "..."
