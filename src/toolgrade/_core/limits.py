"""Bounds on a run's options, shared by the command line, the library and sweep files.

Examples:
    >>> MAX_SEED == 2**32 - 1, MAX_REPEAT
    (True, 1000)
"""

from __future__ import annotations

__all__ = ["MAX_REPEAT", "MAX_SEED"]

MAX_SEED = 2**32 - 1
"""The largest seed (`--seed`). A run's seed picks its `--sample`, seeds its bootstrap
intervals (numpy takes no negative seed) and is sent to the server, where llama.cpp
reads it as an unsigned 32-bit number (and -1 as "random"): 0 to 2**32 - 1 means the
same everywhere."""

MAX_REPEAT = 1000
"""The most repetitions of each case (`--repeat`). A run holds a slot per case and
repetition in memory from its start, and pass^k needs nothing near this many: at 1,000
tries a pass rate is known to within about three points."""
