"""The in-memory wiring of host and emulator the link tests use (`firmware_bridge.loopback`)."""

from firmware_bridge.loopback import TIMING
from firmware_bridge.loopback import Loopback as Bench

__all__ = ["TIMING", "Bench"]
