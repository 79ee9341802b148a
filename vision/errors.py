"""The vision package's exception tree.

Every error a user can cause derives from `VisionError` and also from the built-in it
refines, so callers may catch either. `exit_status` is what `sabot <cmd>` exits with.
"""


class VisionError(Exception):
    """Base of everything the vision package raises on purpose."""

    exit_status = 1


class EnrolmentError(VisionError, ValueError):
    """A samples directory cannot make a profile (missing rank, bad file name, ...)."""

    exit_status = 2


class ProfileError(VisionError, ValueError):
    """A profile file is missing, damaged or of another version."""

    exit_status = 2


class ImageReadError(VisionError, OSError):
    """An image file is missing or cannot be decoded."""

    exit_status = 2


class CalibrationError(VisionError, ValueError):
    """No plausible reading window was found in a camera frame, or a config is unusable."""

    exit_status = 2


class DeckError(VisionError, ValueError):
    """A deck design directory or a card code given to the renderer is not usable."""

    exit_status = 2
