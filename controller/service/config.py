"""`sabot run` configuration: a TOML file, validated at start with errors naming key and file.

Every key has a default, a type and a one-line meaning (`config.example.toml` is generated
from the same table, and a test keeps the two in step).
"""

from __future__ import annotations

import copy
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import ConfigError
from controller.surveillance.messages import TABLE_ID
from hardware.errors import HardwareConfigError
from hardware.panel import check_wiring


@dataclass(frozen=True)
class Key:
    kind: type | tuple[type, ...]
    default: Any
    meaning: str
    choices: tuple = ()


# The reference wiring of docs/deploy.md; `fault` on BCM 4, pulled up at reset (fail safe).
DEFAULT_LAMP_PINS = {
    "fault": 4, "player_draw": 17, "player_stand": 27, "banker_draw": 22, "banker_stand": 10,
    "player_win": 9, "banker_win": 11, "tie": 12, "last_coup": 13, "no_bets": 18,
    "shuffle": 19,
}
DEFAULT_BUTTON_PINS = {"no_more_bets": 23, "card_disclosed": 24, "acknowledge": 25,
                       "new_shoe": 16, "count_out": 20}

SCHEMA: dict[str, dict[str, Key]] = {
    "table": {
        "id": Key(str, "table-1", "name of this table in the journal and the surveillance room"),
        "decks": Key(int, 8, "decks in the shoe (1-12)"),
        "style": Key(str, "A", "dealing style, rules 9.9/9.10/11.1", ("A", "B")),
        "require_no_more_bets": Key(bool, True, "rounds start only after the 'No more bets' "
                                    "button (rule 8.2); false: every round starts by itself"),
    },
    "journal": {
        "path": Key(str, "/var/lib/sabot/journal.sqlite", "SQLite journal (WAL, hash-chained)"),
        "key": Key(str, "", "Ed25519 key that signs the journal's chain head, created "
                   "owner-only on first start with KEY.pub beside it for surveillance ('': "
                   "PATH.key beside the journal; docs/security.md)"),
    },
    "camera": {
        # `synthetic` frames are `sabot simulate`'s own; a rig serves them over http.
        "source": Key(str, "v4l2", "frame source: a rig feeds synthetic frames by http from "
                      "`sabot emulate-shoe --camera` (docs/rig.md)",
                      ("v4l2", "picamera2", "http", "file")),
        "device": Key(str, "/dev/video0", "v4l2 device"),
        "url": Key(str, "", "http MJPEG stream URL (source = http)"),
        "path": Key(str, "", "recorded video or folder of frames (source = file)"),
        "profile": Key(str, "/etc/sabot/profile.npz", "deck profile written by `sabot enroll`"),
        "window": Key(list, [0, 0, 128, 200], "reading window x, y, width, height in the "
                      "frame (`sabot calibrate` writes it)"),
        "width": Key(int, 0, "frame width asked of a v4l2 or Pi camera (0: its default)"),
        "height": Key(int, 0, "frame height asked of a v4l2 or Pi camera (0: its default)"),
        "fps": Key((int, float), 0, "frame rate asked of a v4l2 or Pi camera (0: its "
                   "default)"),
        "exposure_us": Key(int, 0, "a Pi camera's fixed exposure time in microseconds, set "
                           "with analogue_gain: its automatic exposure off (0: automatic; "
                           "docs/deploy.md)"),
        "analogue_gain": Key((int, float), 0, "a Pi camera's fixed analogue gain, 1-16, set "
                             "with exposure_us (0: automatic)"),
        "stale_after_s": Key((int, float), 1.0, "no frame for this long: fault"),
    },
    "serial": {
        "enabled": Key(bool, True, "talk to the shoe's microcontroller"),
        "port": Key(str, "/dev/sabot-shoe", "serial device (udev rule in docs/deploy.md)"),
        "baud": Key(int, 115200, "baud rate"),
    },
    "gpio": {
        "backend": Key(str, "rpigpio", "lamp and button backend", ("rpigpio", "fake")),
        "debounce_ms": Key((int, float), 30, "button debounce time"),
        "lamps": Key(dict, DEFAULT_LAMP_PINS, "lamp name -> BCM pin, or { pin = N, "
                     "active_low = true } (wiring and fail-safe polarity: docs/deploy.md); "
                     "the table replaces this wiring whole: a lamp not named is not wired"),
        "buttons": Key(dict, DEFAULT_BUTTON_PINS, "button name -> BCM pin (the table "
                       "replaces this wiring whole: a button not named is not wired)"),
    },
    "surveillance": {
        "mqtt": Key(str, "", "broker of the surveillance room, mqtt://host:port or "
                    "mqtts://host:port (empty: publish nothing)"),
        "username": Key(str, "", "broker user name (or in the URL)"),
        "password": Key(str, "", "broker password (never logged; password_file keeps it out "
                        "of the config)"),
        "password_file": Key(str, "", "file holding the broker password (never logged)"),
        "ca_file": Key(str, "", "mqtts: CA certificate of the broker (empty: the system's)"),
        "cert_file": Key(str, "", "mqtts: this table's client certificate"),
        "key_file": Key(str, "", "mqtts: this table's client key"),
    },
}


def defaults() -> dict[str, dict[str, Any]]:
    return {section: {name: copy.deepcopy(key.default) for name, key in keys.items()}
            for section, keys in SCHEMA.items()}


# The keys that name files: a relative one is taken from the config's folder, not the
# working directory, which under systemd is / (an engineer's trial: `path = "rig.sqlite"`
# made a journal wherever the service happened to start).
PATH_KEYS = (("journal", "path"), ("journal", "key"), ("camera", "path"),
             ("camera", "profile"), ("serial", "port"), ("surveillance", "password_file"),
             ("surveillance", "ca_file"), ("surveillance", "cert_file"),
             ("surveillance", "key_file"))


def load_config(path: str) -> dict[str, dict[str, Any]]:
    """The config in the file at `path`, checked, its relative file names made absolute
    from the file's folder (PATH_KEYS)."""
    try:
        with open(path, "rb") as handle:
            raw = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    except UnicodeDecodeError as error:  # TOML is UTF-8 text
        raise ConfigError(f"{path}: not a TOML text file (byte {error.start} is not "
                          "UTF-8)") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror})") from None
    config = validate(raw, path)
    folder = Path(path).resolve().parent
    for section, name in PATH_KEYS:
        value = config[section][name]
        if value and not Path(value).is_absolute() and "://" not in value:
            config[section][name] = str(folder / value)
    return config


def validate(raw: dict, path: str = "<config>") -> dict[str, dict[str, Any]]:
    config = defaults()
    for section, values in raw.items():
        if not isinstance(values, dict) and section not in SCHEMA:
            raise ConfigError(f"{path}: {_outside(section, values)}")
        if section not in SCHEMA:
            raise ConfigError(f"{path}: unknown section [{section}] (known: "
                              f"{', '.join(SCHEMA)})")
        if not isinstance(values, dict):
            raise ConfigError(f"{path}: [{section}] must be a table of keys")
        for name, value in values.items():
            key = SCHEMA[section].get(name)
            if key is None:
                raise ConfigError(f"{path}: unknown key {name!r} in [{section}] (known: "
                                  f"{', '.join(SCHEMA[section])})")
            if isinstance(value, bool) and key.kind is not bool or not isinstance(
                    value, key.kind):
                raise ConfigError(f"{path}: [{section}] {name} must be "
                                  f"{_type_name(key.kind)}, not {_shown(value)}")
            if key.choices and value not in key.choices:
                raise ConfigError(f"{path}: [{section}] {name} must be one of "
                                  f"{', '.join(map(str, key.choices))}, not {value!r}")
            config[section][name] = value
    _check_ranges(config, path)
    return config


def _outside(name: str, value: object) -> str:
    """What is wrong with a key above every section heading: where it belongs, if anywhere."""
    homes = [section for section, keys in SCHEMA.items() if name in keys]
    if not homes:
        return f"{name!r} is outside any section, and no section has such a key"
    return (f"{name} = {_shown(value)} is outside any section: it belongs under "
            f"{' or '.join(f'[{home}]' for home in homes)}")


def _shown(value: object) -> str:
    """A value as the config's reader wrote it: TOML's true and false, else Python's repr
    (which for numbers and strings reads the same)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


UART_BAUDS = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 921600, 1000000,
              2000000)


def _check_ranges(config: dict, path: str) -> None:
    def refuse(section: str, key: str, want: str) -> None:
        raise ConfigError(f"{path}: [{section}] {key} must be {want}, not "
                          f"{config[section][key]!r}")

    if not 1 <= config["table"]["decks"] <= 12:
        refuse("table", "decks", "1-12")
    if not TABLE_ID.match(config["table"]["id"]):
        refuse("table", "id", "1-64 letters, digits, '.', '_' or '-' (one MQTT topic level)")
    if not config["journal"]["path"].strip():
        # SQLite would open a temporary database, deleted at exit: nothing would be kept.
        refuse("journal", "path", "a file path")
    camera = config["camera"]
    window = camera["window"]
    if (len(window) != 4 or not all(isinstance(v, int) and not isinstance(v, bool)
                                    and v >= 0 for v in window)
            or window[2] < 16 or window[3] < 16):
        refuse("camera", "window", "four integers x, y, width, height (x, y >= 0; width, "
               "height >= 16)")
    for key in ("width", "height"):
        if camera[key] != 0 and not 16 <= camera[key] <= 8192:
            refuse("camera", key, "0 (the camera's default) or 16-8192 pixels")
    if not (camera["fps"] == 0 or 1 <= camera["fps"] <= 240):  # also refuses nan
        refuse("camera", "fps", "0 (the camera's default) or 1-240")
    if camera["exposure_us"] != 0 and not 10 <= camera["exposure_us"] <= 1_000_000:
        refuse("camera", "exposure_us", "0 (automatic) or 10-1000000 microseconds")
    if not (camera["analogue_gain"] == 0 or 1 <= camera["analogue_gain"] <= 16):  # and nan
        refuse("camera", "analogue_gain", "0 (automatic) or 1-16")
    if bool(camera["exposure_us"]) != bool(camera["analogue_gain"]):
        # One fixed, the other would stay wherever the automatic exposure left it.
        refuse("camera", "analogue_gain" if camera["exposure_us"] else "exposure_us",
               "set as well (the two fix the exposure together; both 0: automatic)")
    if camera["source"] != "picamera2" and (camera["exposure_us"] or camera["analogue_gain"]):
        refuse("camera", "exposure_us" if camera["exposure_us"] else "analogue_gain",
               "0 unless source = 'picamera2' (a USB camera's exposure is set with "
               "v4l2-ctl, docs/deploy.md)")
    if not 0.05 <= camera["stale_after_s"] <= 60:  # also refuses inf and nan
        refuse("camera", "stale_after_s", "0.05-60 seconds")
    x, y, w, h = window
    if camera["width"] and x + w > camera["width"] or camera["height"] and y + h > camera["height"]:
        refuse("camera", "window", f"inside the {camera['width']} x {camera['height']} "
               "frame")
    if config["serial"]["baud"] not in UART_BAUDS:
        refuse("serial", "baud", f"a UART rate ({', '.join(map(str, UART_BAUDS))})")
    if config["gpio"]["debounce_ms"] != 0 and not 0 < config["gpio"]["debounce_ms"] <= 1000:
        refuse("gpio", "debounce_ms", "0-1000")
    _check_wiring(config["gpio"], path)
    if config["surveillance"]["mqtt"]:
        broker_address(config, path)  # a wrong URL or a missing TLS file is named now


def _check_wiring(gpio: dict, path: str) -> None:
    """The lamps' and buttons' pins, checked as the panel will take them (a name, a pin in
    range, no pin used twice), so that a wrong one is named with the file it is in before
    the service starts, not after."""
    try:
        check_wiring(gpio["lamps"], gpio["buttons"])
    except HardwareConfigError as error:
        raise ConfigError(f"{path}: [gpio] {error}") from None


def broker_address(config: dict, path: str = "<config>"):
    """The `[surveillance]` broker as a BrokerAddress, None when none is configured."""
    from controller.surveillance.broker import parse_broker_url  # noqa: PLC0415

    section = config["surveillance"]
    if not section["mqtt"]:
        return None
    return parse_broker_url(
        section["mqtt"], username=section["username"] or None,
        password=section["password"] or None, password_file=section["password_file"] or None,
        ca_file=section["ca_file"] or None, cert_file=section["cert_file"] or None,
        key_file=section["key_file"] or None,
        what=f"{path}: [surveillance] mqtt")


def sets_window(path: str) -> bool:
    """Whether the config file at `path` (valid: `load_config` read it) sets `[camera]
    window` itself: the default window is no calibration, and samples cut or frames read
    there show a part of the frame the card may never cross."""
    with open(path, "rb") as file:
        camera = tomllib.load(file).get("camera", {})
    return isinstance(camera, dict) and "window" in camera


def set_camera_window(path: str, window: tuple[int, int, int, int]) -> None:
    """Set `[camera] window` in the TOML config at `path` (created if missing, never its
    directory), keeping
    every other line, comment and layout as it was. An invalid file is left unchanged."""
    import tomlkit  # noqa: PLC0415 - only `sabot calibrate` writes a config
    from tomlkit.exceptions import TOMLKitError  # noqa: PLC0415

    file = Path(path)
    if not file.parent.is_dir():  # a mistyped path is refused, not made
        raise ConfigError(f"{file}: no such directory {str(file.parent)!r}; the config is "
                          "written only into a directory that exists")
    try:
        text = file.read_text(encoding="utf-8") if file.exists() else ""
        document = tomlkit.parse(text)
    except (TOMLKitError, UnicodeDecodeError) as error:
        raise ConfigError(f"{file}: not valid TOML ({error}); left unchanged") from None
    except OSError as error:
        raise ConfigError(f"{file}: cannot read ({error.strerror})") from None
    camera = document.get("camera")
    if camera is None:
        camera = tomlkit.table()
        document["camera"] = camera
    elif not isinstance(camera, dict):
        raise ConfigError(f"{file}: camera is not a [camera] table; left unchanged")
    camera["window"] = [int(v) for v in window]
    partial = file.with_name(f".{file.name}.new")
    try:
        partial.write_text(tomlkit.dumps(document), encoding="utf-8")
        os.replace(partial, file)  # whole or not at all
    except OSError as error:
        raise ConfigError(f"{file}: cannot write ({error.strerror})") from None


def _type_name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
             list: "a list", dict: "a table"}
    return " or ".join(names[k] for k in kinds)


def example_toml() -> str:
    """The documented example config, every key with its default and meaning."""
    lines = ["# Sabot configuration (sabot run --config PATH). Every key, with its default.", ""]
    for section, keys in SCHEMA.items():
        lines.append(f"[{section}]")
        tables = []
        for name, key in keys.items():
            choices = f" ({' | '.join(key.choices)})" if key.choices else ""
            if isinstance(key.default, dict):
                tables.append((name, key, choices))
                continue
            lines.append(f"# {key.meaning}{choices}")
            lines.append(f"{name} = {_toml_value(key.default)}")
        for name, key, choices in tables:
            lines.append(f"# {key.meaning}{choices}")
            lines.append(f"[{section}.{name}]")
            lines.extend(f"{k} = {_toml_value(v)}" for k, v in key.default.items())
        lines.append("")
    return "\n".join(lines)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)
