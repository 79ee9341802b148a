"""The vision package's exception tree.

Every error a user can cause derives from `VisionError` and also from the built-in it
refines, so callers may catch either. What `sabot` exits with is the CLI's to decide.
"""


class VisionError(Exception):
    """Base of everything the vision package raises on purpose."""


class EnrolmentError(VisionError, ValueError):
    """A samples directory cannot make a profile (missing rank, bad file name, ...)."""


class ProfileError(VisionError, ValueError):
    """A profile file is missing, damaged or of another version."""


class ImageReadError(VisionError, OSError):
    """An image file is missing or cannot be decoded."""


class CalibrationError(VisionError, ValueError):
    """No plausible reading window was found in a camera frame, or a config is unusable."""


class DeckError(VisionError, ValueError):
    """A deck design directory or a card code given to the renderer is not usable."""
