"""The hardware package's exception tree.

Each class also derives from the built-in it refines (gpiozero's style), so callers may catch
either. Configuration mistakes name the key, lamp or pin at fault, so `sabot run` can stop at
start with one clear line (the CLI exits 2 for them).
"""


class HardwareError(Exception):
    """Base of everything `hardware` raises on purpose."""


class HardwareConfigError(HardwareError, ValueError):
    """A lamp, button, pin or camera setting in the configuration is wrong."""


class PinConfigError(HardwareConfigError):
    """A pin is out of range, used twice, or given with a bad polarity."""


class NameConfigError(HardwareConfigError):
    """A lamp or button name is not one we know (usually a typo)."""


class LampConflictError(HardwareError, ValueError):
    """Asked to light a hand's draw and stand lamps together, which must never be shown."""


class BackendUnavailableError(HardwareError, ImportError):
    """The backend's library is missing or refuses to run here (RPi.GPIO off a Pi)."""


class CameraError(HardwareError, RuntimeError):
    """A camera source cannot be opened or failed."""


class CameraStalledError(CameraError, TimeoutError):
    """A camera source delivered no frame for longer than its stale limit."""
