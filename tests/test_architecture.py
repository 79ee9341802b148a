"""The house's rules (issue 9, docs/architecture.md): rooms import only rooms below them, the
drivers never import `controller`, and the game imports no driver at all."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# controller's rooms, lowest first; a room may import its own and lower ones.
LEVEL = {"errors": 0, "game": 1, "journal": 2, "views": 3, "surveillance": 3, "service": 4,
         "monitor": 4, "sim": 5, "cli": 6}
DRIVERS = ("vision", "firmware_bridge", "hardware")
# What a room may not import besides: the game is pure (no I/O libraries, no threads), the
# journal needs no driver nor pixels.
FORBIDDEN = {"game": (*DRIVERS, "cv2", "numpy", "serial", "sqlite3", "threading"),
             "journal": (*DRIVERS, "cv2", "numpy", "serial"),
             "surveillance": (*DRIVERS, "cv2", "numpy", "serial"),
             "monitor": (*DRIVERS, "cv2", "numpy", "serial")}


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def room_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "controller" and len(parts) > 1 else None


def controller_files():
    return sorted((ROOT / "controller").rglob("*.py"))


def test_every_controller_module_lives_in_a_room():
    loose = [p.name for p in (ROOT / "controller").glob("*.py")
             if p.stem not in ("__init__", "errors")]
    assert loose == []
    assert {p.name for p in (ROOT / "controller").iterdir() if p.is_dir()
            and p.name != "__pycache__"} == set(LEVEL) - {"errors"}


@pytest.mark.parametrize("path", controller_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_room_imports_a_higher_one(path):
    room = path.relative_to(ROOT / "controller").parts[0].removesuffix(".py")
    if room == "__init__":
        return
    level = LEVEL[room]
    higher = sorted(m for m in imports_of(path)
                    if room_of(m) in LEVEL and LEVEL[room_of(m)] > level
                    # rooms of one level are side by side: neither imports the other
                    or room_of(m) in LEVEL and LEVEL[room_of(m)] == level
                    and room_of(m) != room and level > 0)
    assert higher == [], f"{path.name} ({room}) imports {higher}"
    forbidden = sorted(m for m in imports_of(path)
                       if m.split(".")[0] in FORBIDDEN.get(room, ()))
    assert forbidden == [], f"{path.name} ({room}) imports {forbidden}"


@pytest.mark.parametrize("package", DRIVERS)
def test_the_drivers_never_import_controller(package):
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / package).rglob("*.py"))
                 if any(m.split(".")[0] == "controller" for m in imports_of(p))]
    assert offenders == []


def test_the_shared_names_import_nothing_and_are_the_ones_every_package_uses():
    """Issue 9: lamp, button and card names were defined in several places."""
    import contract
    from controller.game import cards
    from controller.service import config, runtime
    from firmware_bridge import messages
    from hardware import buttons
    from hardware import lamps as lamp_pins
    from vision import cards as vision_cards

    assert imports_of(ROOT / "contract" / "__init__.py") == set()
    assert lamp_pins.LAMP_NAMES is contract.LAMP_NAMES
    assert messages.LAMPS_ORDER is contract.LAMP_NAMES
    assert messages.BUTTONS is contract.BUTTON_NAMES is buttons.BUTTON_NAMES
    assert cards.ALL_CODES is contract.ALL_CARDS is vision_cards.ALL_CARDS
    assert set(runtime.BUTTON_OBSERVATIONS) == set(contract.BUTTON_NAMES)
    assert set(config.DEFAULT_LAMP_PINS) == set(contract.LAMP_NAMES)
    assert set(config.DEFAULT_BUTTON_PINS) == set(contract.BUTTON_NAMES)


def test_exit_statuses_are_decided_by_the_cli_alone():
    """Issue 9: exit codes lived inside the libraries' error classes."""
    offenders = [str(p.relative_to(ROOT)) for package in ("controller", *DRIVERS)
                 for p in sorted((ROOT / package).rglob("*.py"))
                 if "exit_status" in p.read_text() and p.parent.name != "cli"]
    assert offenders == []
    from controller.cli import exit_status_of
    from controller.errors import ConfigError, InputError, JournalError
    from firmware_bridge.errors import PortError
    from vision.errors import ProfileError
    assert [exit_status_of(e) for e in (InputError("x"), ConfigError("x"), ProfileError("x"),
                                        PortError("x"), JournalError("x"), OSError("x"))] \
        == [2, 2, 2, 3, 1, 1]
