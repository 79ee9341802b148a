"""`sabot` command line: one subcommand per module of this package
(`controller/cli/<command>.py`, each with `register(subparsers)`).

Each command module defines `register(subparsers)`, which adds its parser and sets `func`
(taking the parsed arguments, returning an exit status). New commands need no edit here.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from controller.errors import SabotError

EXIT_INTERNAL = 70  # EX_SOFTWARE


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean 'the user asked for something wrong', from every package."""
    errors: list[type[BaseException]] = [SabotError, OSError]
    for module_name, attr in (
        ("vision.errors", "VisionError"),
        ("firmware_bridge.errors", "LinkError"),
        ("hardware.errors", "HardwareError"),
    ):
        try:
            errors.append(getattr(importlib.import_module(module_name), attr))
        except (ImportError, AttributeError):
            continue
    return tuple(errors)


# The exit statuses are the CLI's to decide, not the libraries': 2 for something the user
# wrote wrong (an input, a config, samples, a profile, an image, a window, a pin), 3 for a
# shoe that cannot be reached, 1 for anything else a user can cause. Checked in order.
EXIT_STATUSES = (
    ("controller.errors", "InputError", 2),
    ("controller.errors", "ConfigError", 2),
    ("vision.errors", "EnrolmentError", 2),
    ("vision.errors", "ProfileError", 2),
    ("vision.errors", "ImageReadError", 2),
    ("vision.errors", "CalibrationError", 2),
    ("vision.errors", "DeckError", 2),
    ("hardware.errors", "HardwareConfigError", 2),
    ("hardware.errors", "BackendUnavailableError", 2),
    ("firmware_bridge.errors", "PortError", 3),
)


def exit_status_of(error: BaseException) -> int:
    for module_name, name, status in EXIT_STATUSES:
        module = sys.modules.get(module_name)  # an error of a module never imported is not it
        kind = getattr(module, name, None) if module is not None else None
        if kind is not None and isinstance(error, kind):
            return status
    return 1


def command_modules() -> list[str]:
    # The folder's listing: pkgutil.iter_modules would add its own imports to the start-up
    # of every command (`sabot deal` on an empty input is to finish in 50 ms).
    return sorted(entry.name.removesuffix(".py") for folder in __path__
                  for entry in os.scandir(folder)
                  if entry.name.endswith(".py") and not entry.name.startswith("_"))


def terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it: $COLUMNS, else that of
    the terminal on standard output, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's own, told the terminal's width. Left to find it, argparse imports shutil
    (and the compression modules shutil imports) at a parser's first argument: 2.5 ms of
    every start, `sabot deal`'s included, which is to take 50 ms in all."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help is laid out by `HelpFormatter` unless told otherwise;
    a command's parser is of its parent's class, so every command's is one too."""

    def __init__(self, *args, formatter_class: type = HelpFormatter, **kwargs) -> None:
        super().__init__(*args, formatter_class=formatter_class, **kwargs)


class _Version(argparse.Action):
    """`--version`: the installed release, looked up only when asked (importing
    importlib.metadata would add milliseconds to every command's start)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="print the release of sabot installed and exit") -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            release = version("sabot")
        except PackageNotFoundError:
            release = "(not installed: run from a source tree)"
        print(f"sabot {release}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or with `only` that one: a command's heavy imports
    (OpenCV, numpy, pyserial) then cost nothing to the others, such as `deal`."""
    parser = Parser(
        prog="sabot",
        description="Sabot: the software of an electronic baccarat shoe.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in [only] if only else command_modules():
        importlib.import_module(f"controller.cli.{name}").register(subparsers)
    parser.set_defaults(commands=subparsers.choices)
    return parser


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """`argv` parsed; an argument no command knows is refused by its command's parser, with
    that command's usage (argparse's top parser gave its own: `usage: sabot [-h] COMMAND`)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        command = args.commands.get(args.command, parser)
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _requested_command(argv: list[str]) -> str | None:
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    module = first.replace("-", "_") if first else None
    return module if module in command_modules() else None


def _thread_error_in_one_line(hook: threading.ExceptHookArgs) -> None:
    """A worker thread's bug is reported like the main thread's: one line, no traceback."""
    if os.environ.get("SABOT_DEBUG"):
        threading.__excepthook__(hook)
        return
    name = hook.thread.name if hook.thread else "a thread"
    print(f"sabot: internal error in {name}: {hook.exc_type.__name__}: {hook.exc_value} "
          "(run with SABOT_DEBUG=1 to see where; please report it)", file=sys.stderr)


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException, like KeyboardInterrupt, so nothing swallows it)."""


def _terminated(signum, frame):
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    threading.excepthook = _thread_error_in_one_line
    parser = build_parser(_requested_command(argv))
    args = parse(parser, argv)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM unwinds like Ctrl-C, so what a command opened is closed in order (the
        # service installs its own handlers and stops at its own pace).
        signal.signal(signal.SIGTERM, _terminated)
    try:
        return int(args.func(args) or 0)
    except Terminated:
        print("sabot: stopped by SIGTERM", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("sabot: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `sabot deal | head`); that is not an error of ours.
        sys.stderr.close()
        return 0
    except _user_errors() as error:
        print(f"sabot {args.command}: {error}", file=sys.stderr)
        return exit_status_of(error)
    except Exception as error:  # noqa: BLE001 - a bug of ours: say so in one line
        if os.environ.get("SABOT_DEBUG"):
            raise
        print(f"sabot {args.command}: internal error: {type(error).__name__}: {error} "
              "(run with SABOT_DEBUG=1 to see where; please report it)", file=sys.stderr)
        return EXIT_INTERNAL
