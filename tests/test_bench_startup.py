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
