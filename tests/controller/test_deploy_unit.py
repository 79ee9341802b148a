"""The shipped systemd unit (issue 12): it runs the service as docs/deploy.md says, can write
where the journal is by default, and `systemd-analyze security` rates it as docs/security.md
says (the Makefile installs systemd's tools where they are missing)."""

import configparser
import re
import shutil
import subprocess
from pathlib import Path

from controller.service.config import SCHEMA

UNIT = Path("deploy/sabot.service")


def unit() -> dict[str, list[str]]:
    """Every key of the [Service] section with all its values (keys repeat in a unit)."""
    values: dict[str, list[str]] = {}
    section = None
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def test_the_unit_runs_the_service_as_its_own_user_where_the_journal_can_be_written():
    service = unit()
    assert service["ExecStart"] == ["/opt/sabot/venv/bin/sabot run --config /etc/sabot/config.toml"]
    assert service["Type"] == ["notify"] and service["User"] == ["sabot"]
    journal_folder = str(Path(SCHEMA["journal"]["path"].default).parent)
    assert service["ReadWritePaths"] == [journal_folder]
    assert service["ProtectSystem"] == ["strict"] and service["CapabilityBoundingSet"] == [""]
    assert service["UMask"] == ["0077"]  # the journal and its key are owner-only
    # The unit parses as an INI file too (no stray line a unit loader would refuse).
    configparser.ConfigParser(strict=False, interpolation=None).read(UNIT)


def test_systemd_analyze_rates_the_unit_as_docs_security_md_says():
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: `make test` installs it (Debian's systemd)"
    done = subprocess.run([analyze, "security", "--offline=yes", str(UNIT)],
                          capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for sabot.service: ([0-9.]+) (\w+)", done.stdout)
    assert found, done.stdout[-500:] + done.stderr[-500:]
    exposure = float(found.group(1))
    assert exposure <= 2.0 and found.group(2) == "OK"
    for doc in ("docs/security.md", "docs/deploy.md"):
        assert f"rates it {exposure} {found.group(2)}" in Path(doc).read_text(), doc
