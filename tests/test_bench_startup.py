"""bench.startup (issue 9's 50 ms start-up of `sabot deal`): it times real starts and names
the imports that cost most."""

import os

from bench import startup


def test_times_fresh_starts_of_sabot_deal():
    times = startup._times(2, dict(os.environ))
    assert len(times) == 2 and all(0 < t < 30 for t in times)


def test_names_the_heaviest_imports_of_the_command():
    rows = startup._heaviest_imports(dict(os.environ))
    names = [name for _, name in rows]
    assert "controller.cli" in names
    assert all(ms >= 0 for ms, _ in rows) and rows == sorted(rows, reverse=True)
    assert not {"numpy", "cv2"} & set(names)  # issue 9: deal imports neither


def test_sabot_deal_starts_without_importing_shutil():
    """argparse's help formatter imports shutil (2.5 ms with its compression modules) unless
    it is told the terminal's width, which `controller.cli.HelpFormatter` does."""
    import subprocess
    import sys

    code = ("import sys; from controller.cli import build_parser; "
            "build_parser('deal').parse_args(['deal']); print('shutil' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_help_is_as_wide_as_the_terminal_says(capsys, monkeypatch):
    import pytest

    from controller.cli import build_parser

    for columns in (50, 120):
        monkeypatch.setenv("COLUMNS", str(columns))
        with pytest.raises(SystemExit):
            build_parser("deal").parse_args(["deal", "--help"])
        lines = capsys.readouterr().out.splitlines()
        assert max(map(len, lines)) <= columns - 2
        if columns == 120:
            assert max(map(len, lines)) > 50  # the wider terminal is used, not a fixed width


def test_sabot_deal_runs_without_importing_typing():
    """`typing` costs 3 ms of a 50 ms start (issue 9): the game's records declare their
    `kind` as a plain class attribute, which a dataclass leaves out of its fields anyway."""
    import subprocess
    import sys

    code = ("import sys; sys.argv = ['sabot', 'deal']; from controller.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('typing' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, check=True)
    assert out.stderr.strip().splitlines()[-1] == "False"


def test_an_observations_kind_is_no_field_of_its_record():
    from dataclasses import fields

    from controller.game import observations as obs

    for cls in obs.ALL_KINDS:
        assert "kind" not in {f.name for f in fields(cls)}
        assert obs.observation_from_dict(obs.to_dict(_example(cls))) == _example(cls)


def _example(cls):
    from controller.game import observations as obs

    return {obs.Card: obs.Card("9H"), obs.Unreadable: obs.Unreadable("smudge"),
            obs.EquipmentFault: obs.EquipmentFault("camera"),
            obs.SlidBack: obs.SlidBack("10C")}.get(cls) or cls()
