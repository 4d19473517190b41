"""Make `file_agent` importable for the python/ backend when pytest runs here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
