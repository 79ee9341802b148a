"""`sabot monitor`: the surveillance room's web page of every table, live from the broker."""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
import sys
from contextlib import ExitStack
from pathlib import Path

from controller.errors import InputError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "monitor", help="serve the surveillance room's web page of every table, live",
        description="Subscribe to every table on the broker, keep what arrives (SQLite) and "
        "serve the room page, a page per table with its hands, the five roads, statistics, "
        "irregularities and earlier shoes, and a JSON API (docs/surveillance.md).")
    parser.add_argument("--mqtt", required=True, metavar="URL",
                        help="the broker: mqtt://host:port or mqtts://host:port")
    parser.add_argument("--http", default="127.0.0.1:8080", metavar="HOST:PORT",
                        help="where to serve the pages (default 127.0.0.1:8080, this machine "
                        "only)")
    parser.add_argument("--db", metavar="PATH", help="history file (default "
                        "$XDG_STATE_HOME/sabot/monitor.sqlite or ~/.local/state/...)")
    parser.add_argument("--group", metavar="NAME", help="share the tables' events with the "
                        "other monitors of this group (MQTT 5 shared subscription)")
    parser.add_argument("--keys", metavar="DIR", help="the tables' public keys, one "
                        "TABLE.pub per table (the KEY.pub beside its journal key): their "
                        "signed journal heads are checked against them (docs/security.md)")
    parser.add_argument("--username", metavar="USER", help="broker user name")
    parser.add_argument("--password-file", metavar="PATH", help="file holding the password")
    parser.add_argument("--ca-file", metavar="PATH", help="mqtts: the broker's CA")
    parser.add_argument("--cert-file", metavar="PATH", help="mqtts: this monitor's certificate")
    parser.add_argument("--key-file", metavar="PATH", help="mqtts: this monitor's key")
    parser.set_defaults(func=run)


def http_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"--http {text!r}: give HOST:PORT, the port a number 1-65535")
    return host, int(port)


def table_keys(folder: Path) -> dict[str, str]:
    """Table id -> public key (hex) from the TABLE.pub files in `folder`."""
    from controller.journal.signing import load_public_key, public_hex
    from controller.surveillance.messages import check_table_id

    if not folder.is_dir():
        raise InputError(f"--keys {folder}: not a folder")
    keys = {check_table_id(file.stem, f"--keys {file}: table id"): public_hex(
        load_public_key(file)) for file in sorted(folder.glob("*.pub"))}
    if not keys:
        raise InputError(f"--keys {folder}: no TABLE.pub file in it")
    return keys


GRACE_S = 1  # s the pages' requests are given to finish when the monitor is told to stop


def default_db() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "sabot" / "monitor.sqlite"


def run(args) -> int:
    try:
        import uvicorn

        from controller.monitor.app import create_app
    except ImportError as error:
        print(f"sabot monitor: {error.name} is not installed: pip install 'sabot[monitor]'",
              file=sys.stderr)
        return 1
    from controller.monitor.service import MonitorService
    from controller.monitor.store import MonitorStore
    from controller.surveillance.broker import open_client, parse_broker_url
    from controller.surveillance.messages import check_table_id

    host, port = http_address(args.http)
    address = parse_broker_url(args.mqtt, username=args.username,
                               password_file=args.password_file, ca_file=args.ca_file,
                               cert_file=args.cert_file, key_file=args.key_file)
    if args.group:
        check_table_id(args.group, "--group")
    db = Path(args.db) if args.db else default_db()
    db.parent.mkdir(parents=True, exist_ok=True)
    keys = table_keys(Path(args.keys)) if args.keys else {}
    with ExitStack() as stack:
        # The history and the port are taken before the broker is: a second monitor started
        # by mistake took over the first one's session (its client id) and what the broker
        # kept for it, and only then failed on the port in use.
        stack.enter_context(_hold(db))
        listening = [stack.enter_context(s) for s in _listen(host, port, args.http)]
        if not _loopback(host):
            print(f"sabot monitor: serving on {host}, not only this machine: the pages have no "
                  "login of their own; put them behind the casino's proxy", file=sys.stderr)
        store = MonitorStore(str(db))  # refused before the broker is asked for anything
        stack.callback(store.close)  # closed by the service too: closing twice is harmless
        client = open_client(address, session=True, client_id=client_id(args.group, port))
        service = MonitorService(client, store, group=args.group, keys=keys).start()
        stack.callback(service.stop)
        shown = f"[{host}]" if ":" in host else host
        print(f"sabot monitor: http://{shown}:{port}/ ; broker {address}; history {db}",
              file=sys.stderr, flush=True)
        # A room page holds its event stream open for as long as it is shown: told to stop,
        # uvicorn waited for every one to close, its API silent and the history locked
        # meanwhile (a surveillance officer's trial, stop 53). Past this the streams are
        # cut, and the pages reconnect to whichever monitor serves next.
        config = uvicorn.Config(create_app(service), host=host, port=port, log_level="warning",
                                access_log=False, timeout_graceful_shutdown=GRACE_S)
        uvicorn.Server(config).run(sockets=listening)
    return 0


def client_id(group: str | None, port: int) -> str:
    """The monitor's client id on the broker: stable, so that a restarted monitor takes up
    its session (and what the broker kept for it meanwhile) again, and its own, so that two
    do not take each other's: by host and port (a group's members on one host each have
    their own port; by the group's name alone they shared one id)."""
    return f"sabot-monitor-{socket.gethostname()}-{group + '-' if group else ''}{port}"


def _hold(db: Path):
    """An exclusive hold on the history `db` (by its real path: a link to it is the same
    history) for as long as this monitor runs."""
    from controller.journal.store import hold_exclusively  # noqa: PLC0415

    try:
        lock = hold_exclusively(f"{db.resolve()}.lock", os.O_RDONLY, 0o644)
    except OSError as error:
        raise InputError(f"--db {db}: cannot lock its history ({error.strerror})") from None
    if lock is None:
        raise InputError(f"--db {db}: another sabot monitor keeps its history there")
    return lock


def _listen(host: str, port: int, given: str) -> list[socket.socket]:
    """The pages' listening sockets, bound now (uvicorn serves on them): one for each address
    `host` names, as uvicorn binds them itself (`localhost`: 127.0.0.1 and ::1)."""
    try:
        found = socket.getaddrinfo(host, port, socket.AF_UNSPEC, socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise InputError(f"--http {given}: cannot serve there: {error.strerror}") from None
    bound: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):  # once each
            listening = socket.socket(family, kind, proto)
            bound.append(listening)
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # each family its own socket, as uvicorn has it
                listening.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            listening.bind(address)
            listening.listen(128)
    except OSError as error:
        for listening in bound:
            listening.close()
        why = ("in use by another program (another sabot monitor, or the broker?)"
               if error.errno == errno.EADDRINUSE
               else error.strerror)
        raise InputError(f"--http {given}: cannot serve there: {why}") from None
    return bound


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

