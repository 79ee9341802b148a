"""Is the shoe's equipment alive? Camera frames and link heartbeats must be fresh.

Pure: the caller reports what it saw with timestamps and asks at a given time. A source
that goes stale raises one fault (then nothing until it is fresh again); the watchdog is fed
only while every required source is fresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Source:
    name: str
    stale_after: float
    last_seen: float | None = None
    faulted: bool = False


@dataclass
class Health:
    sources: dict[str, Source] = field(default_factory=dict)

    def watch(self, name: str, stale_after: float, now: float) -> None:
        """Start watching `name`; it has `stale_after` seconds to show up."""
        self.sources[name] = Source(name, stale_after, last_seen=now)

    def seen(self, name: str, now: float) -> None:
        source = self.sources[name]
        source.last_seen = now
        source.faulted = False

    def lost(self, name: str) -> None:
        """The source said it is gone (link down): stale at once."""
        self.sources[name].last_seen = None

    def new_faults(self, now: float) -> list[str]:
        """Reasons for sources that went stale since the last call (each reported once)."""
        reasons = []
        for source in self.sources.values():
            if not source.faulted and not self._fresh(source, now):
                source.faulted = True
                age = ("lost" if source.last_seen is None
                       else f"nothing for {now - source.last_seen:.1f} s")
                reasons.append(f"{source.name}: {age}")
        return reasons

    def healthy(self, now: float) -> bool:
        return all(self._fresh(source, now) for source in self.sources.values())

    @staticmethod
    def _fresh(source: Source, now: float) -> bool:
        return source.last_seen is not None and now - source.last_seen <= source.stale_after
