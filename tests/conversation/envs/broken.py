"""An environment module whose import fails."""

raise ImportError("this module cannot be loaded")
