"""`sabot run --config PATH`: the service of a live table."""

from __future__ import annotations

import logging
import sys

DEFAULT_CONFIG = "/etc/sabot/config.toml"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "run", help="run the shoe service (camera, serial link, GPIO, journal)",
        description="Run the service of a live table from its config (every key is documented "
        "in config.example.toml). Validates the config first and names any wrong key. Meant "
        "for systemd (Type=notify, WatchdogSec): see docs/deploy.md.")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help=f"config file (default "
                        f"{DEFAULT_CONFIG})")
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warning", "error"))
    parser.add_argument("--show", action="store_true", help="print what the table does on "
                        "stdout as it happens: every card, round, lamp change and fault")
    parser.add_argument("--loop", action="store_true", help="with [camera] source = 'file': "
                        "play the recorded frames again from the start at their end, until "
                        "stopped (a rig's soak); without it the service stops at their end")
    parser.set_defaults(func=run)


def run(args) -> int:
    from controller.service.config import load_config
    from controller.service.main import serve

    config = load_config(args.config)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level.upper(),
        format="level=%(levelname)s logger=%(name)s msg=%(message)r")
    sinks = []
    if args.show:
        from controller.views.console import ShowSink

        sinks.append(ShowSink(lambda line: print(line, flush=True)))
    return serve(config, sinks, loop=args.loop)
