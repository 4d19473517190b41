"""Importers for other benchmarks' formats: BFCL v4 single-turn categories and results."""

from toolgrade.interop._bfcl_data import OUT_OF_SCOPE, BfclCategory
from toolgrade.interop._bfcl_import import bfcl_categories, import_bfcl
from toolgrade.interop._bfcl_results import convert_bfcl_results

__all__ = [
    "OUT_OF_SCOPE",
    "BfclCategory",
    "bfcl_categories",
    "convert_bfcl_results",
    "import_bfcl",
]
