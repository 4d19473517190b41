"""BFCL in one place: its data, import, result files, codec, checker and `bfcl` profile.

- `_data`: where BFCL's data lives (installed `bfcl_eval`, wheel or folder) and reading it.
- `_import`: BFCL entries -> toolgrade cases and suites (`import_bfcl`, `bfcl_categories`).
- `_mt_import`: BFCL multi-turn entries -> conversations (through `import_bfcl`).
- `_mt_apis`: `BfclApis`, the conversations' environment: BFCL's own API classes,
  imported from the installed `bfcl_eval` (not imported by this package).
- `_results`: BFCL result files -> toolgrade responses (`convert_bfcl_results`).
- `_when2call`: NVIDIA When2Call's JSONL (built from BFCL live entries) -> cases with an
  expected outcome (`import_when2call`).
- `_codec`: BFCL docs and possible answers <-> tool schemas and expected calls.
- `_answer`, `_checker`, `_convert`: BFCL's AST checker, ported rule for rule.
- `_profile`: the `bfcl` judge profile (`PROFILE`), which the profile registry imports
  the first time `bfcl` is asked for (this package does not import it, so that
  importing toolgrade imports no profile).
"""

from toolgrade.bfcl._data import OUT_OF_SCOPE, BfclCategory, MultiTurnCategory
from toolgrade.bfcl._import import bfcl_categories, import_bfcl
from toolgrade.bfcl._results import convert_bfcl_results, read_bfcl_results
from toolgrade.bfcl._when2call import WHEN2CALL_OUTCOMES, import_when2call

__all__ = [
    "BfclCategory",
    "MultiTurnCategory",
    "OUT_OF_SCOPE",
    "WHEN2CALL_OUTCOMES",
    "bfcl_categories",
    "convert_bfcl_results",
    "import_bfcl",
    "import_when2call",
    "read_bfcl_results",
]
