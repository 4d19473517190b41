"""Run storage: run folders on disk and the SQLite run history."""

__all__: list[str] = []
