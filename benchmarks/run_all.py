"""Run every benchmark script in this folder, one after another.

Run: .venv/bin/python benchmarks/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    failed = []
    for script in sorted(Path(__file__).parent.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script)], check=False).returncode:
            failed.append(script.name)
    if failed:
        print("missed targets: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
