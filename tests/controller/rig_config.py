"""The config of `sabot run` that the tests' rigs write: fake GPIO, a camera and a pty."""

from __future__ import annotations

import json
from pathlib import Path


def write_config(path: Path, *, table_id: str, journal: Path, camera: dict, port: str | Path,
                 require_no_more_bets: bool = False) -> Path:
    """`camera`: the [camera] keys (source, path or url, profile, window, ...)."""
    lines = ["[table]", f"id = {json.dumps(table_id)}",
             f"require_no_more_bets = {str(require_no_more_bets).lower()}",
             "[journal]", f"path = {json.dumps(str(journal))}", "[camera]"]
    lines += [f"{key} = {json.dumps(value if not isinstance(value, Path) else str(value))}"
              for key, value in camera.items()]
    lines += ["[serial]", f"port = {json.dumps(str(port))}", "[gpio]", 'backend = "fake"']
    path.write_text("\n".join(lines) + "\n")
    return path
