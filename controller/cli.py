"""`sabot` command line: one subcommand per module in `controller.commands`.

Each command module defines `register(subparsers)`, which adds its parser and sets `func`
(taking the parsed arguments, returning an exit status). New commands need no edit here.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from controller import commands
from controller.errors import SabotError


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sabot",
        description="Sabot: the software of an electronic baccarat shoe.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        importlib.import_module(f"controller.commands.{info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("sabot: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `sabot deal | head`); that is not an error of ours.
        sys.stderr.close()
        return 0
    except _user_errors() as error:
        print(f"sabot {args.command}: {error}", file=sys.stderr)
        return getattr(error, "exit_status", 1)


if __name__ == "__main__":
    sys.exit(main())
