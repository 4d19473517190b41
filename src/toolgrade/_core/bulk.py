"""Building many objects at once without the cyclic garbage collector's passes.

Loading a large suite makes tens of thousands of long-lived objects and no garbage
cycles; each full pass of the collector walks all of them, so the passes it triggers
cost more than the building itself. `building_many()` pauses the collector for the
duration (only when it was running, and only once however deeply nested).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["building_many"]


@contextmanager
def building_many() -> Iterator[None]:
    """Pause the cyclic garbage collector while the block runs.

    Examples:
        >>> import gc
        >>> with building_many():
        ...     gc.isenabled()
        False
        >>> gc.isenabled()
        True
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
