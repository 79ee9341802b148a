"""The controller's exception tree.

Every error a user can cause derives from `SabotError` and also from the built-in it refines
(gpiozero's style), so callers may catch either. The CLI turns them into one clear line and a
non-zero exit of its choosing (`controller/cli/__init__.py`); a user never sees a traceback.
"""


class SabotError(Exception):
    """Base of everything the controller raises on purpose."""


class InputError(SabotError, ValueError):
    """A token, file or argument a user supplied is not acceptable."""


class CardCodeError(InputError):
    """A string is not a card code."""


class ConfigError(SabotError, ValueError):
    """A configuration key or value is wrong."""


class JournalError(SabotError, RuntimeError):
    """The journal cannot be opened, or is not what it claims to be."""


class JournalPathError(JournalError, InputError):
    """The journal path given cannot be a journal at all (empty): the user's to fix."""


class JournalKeyError(JournalError, InputError):
    """A journal key or anchor file is missing, unreadable, of the wrong kind or exposed."""
