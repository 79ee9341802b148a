"""Start-up benchmark: `sabot deal` on an empty input, as a shell script or a pipe calls it.

Issue 9 asks for under 50 ms here. Each run is a fresh process (`sabot deal < /dev/null`);
the figures are the median and the fastest of `--runs`, with the bytecode cached as an
installed package has it (PYTHONDONTWRITEBYTECODE, which this machine sets, is removed
for the runs: without a cache every start compiles every module again, 80-90 ms). Then the
modules that cost the most to import, from one run under `python -X importtime`.
Run: .venv/bin/python -m bench.startup [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def _sabot() -> str:
    beside = os.path.join(os.path.dirname(sys.executable), "sabot")
    return beside if os.path.exists(beside) else shutil.which("sabot") or "sabot"


def _times(runs: int, env: dict[str, str]) -> list[float]:
    command = [_sabot(), "deal"]
    subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env,
                   check=True)  # once first: the bytecode is written, the files are cached
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env,
                       check=True)
        times.append(time.perf_counter() - start)
    return times


def _heaviest_imports(env: dict[str, str], count: int = 8) -> list[tuple[float, str]]:
    """(cumulative ms, module) of the top-level imports that cost most, from one run."""
    run = subprocess.run([sys.executable, "-X", "importtime", _sabot(), "deal"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                         check=True)
    rows = []
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        if not name.startswith("  "):  # imported by the command itself, not by a module
            rows.append((int(cumulative) / 1000, name.strip()))
    return sorted(rows, reverse=True)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41, help="starts to time (default 41)")
    args = parser.parse_args()
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = [t * 1e3 for t in _times(args.runs, cached)]
    print(f"sabot deal < /dev/null, bytecode cached: median {statistics.median(times):.1f} ms, "
          f"fastest {min(times):.1f} ms over {args.runs} starts")
    print("heaviest imports (cumulative, one run under -X importtime, which adds its own "
          "cost):")
    for ms, name in _heaviest_imports(cached):
        print(f"  {ms:6.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
