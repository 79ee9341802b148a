"""Long runs, kept out of `make test`: `make soak` runs them."""

import json
import subprocess
import sys

import pytest

from controller.game.script import format_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.soak
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_whole_8_deck_shoes_simulated_equal_deal(seed, tmp_path):
    shoe = tmp_path / "shoe.txt"
    shoe.write_text(format_script(dealt_until_shoe_end(shuffled_shoe(8, seed=seed), 8)))
    dealt = cli("deal", str(shoe), "--json")
    simulated = cli("simulate", "--json", "--shoe", str(shoe), "--seed", str(seed),
                    "--journal", str(tmp_path / "j.sqlite"))
    assert simulated.returncode == dealt.returncode == 0, simulated.stderr
    lines = simulated.stdout.splitlines()
    assert lines[:-1] == dealt.stdout.splitlines()
    assert json.loads(lines[-1])["event"] == "stats"
    assert cli("verify", str(tmp_path / "j.sqlite")).returncode == 0
