"""BFCL's dict checkers, and their compiled fast path: which dicts evidently pass them.

`dict_check` and `list_dict_check` are BFCL's `dict_checker` and `list_dict_checker`,
ported rule for rule (`_checker` calls them). `dict_checker` accepts a dict when some
option of the possible answer (a dict of key -> acceptable values) takes every key of
it, with a value among the key's values (both standardized), and every key of the
option it lacks may be left out (`""` among its values). For the compiled checker,
`dict_rules` prepares each option once and `dict_matches` accepts a dict whose every
value *equals* one of its key's values (then it is one standardized, too) and that
lacks no key it needs. A dict it does not accept goes to `dict_check`, which decides
as it always did: the fast path never fails a dict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolgrade.bfcl._answer import as_list, contains, std
from toolgrade.bfcl._check_result import OK, BfclCheck, fail

__all__ = [
    "DictRule",
    "all_dicts_match",
    "dict_check",
    "dict_list_rules",
    "dict_matches",
    "dict_rules",
    "list_dict_check",
]

DictRule = tuple[dict[str, tuple[object, ...]], frozenset[str]]
"""One dict option: each key's values (as BFCL reads them), and the keys it needs."""


def _rule(option: Mapping[str, object]) -> DictRule:
    allowed = {key: tuple(_key_options(item)) for key, item in option.items()}
    # `"" in` a bare string is always true: such a key may be left out (as in `_dict_one`).
    needed = {k for k, item in option.items() if type(item) is not str and "" not in as_list(item)}
    return allowed, frozenset(needed)


def dict_rules(options: Sequence[object]) -> tuple[DictRule, ...]:
    """The dict options BFCL's `dict_checker` reaches, in order (`""` skipped).

    It stops at an option that is not a dict (it fails the value there, `bad_answer`),
    so the options after it are never reached, and are left out.
    """
    rules: list[DictRule] = []
    for option in options:
        if option == "":
            continue
        if not isinstance(option, Mapping):
            break
        rules.append(_rule(option))
    return tuple(rules)


def dict_list_rules(options: Sequence[object]) -> tuple[tuple[DictRule, ...], ...]:
    """Per option that is a list of dicts (BFCL's `list_dict_checker`), its dicts' rules."""
    return tuple(
        tuple(_rule(item) for item in option)
        for option in options
        if isinstance(option, list) and all(isinstance(item, Mapping) for item in option)
    )


def dict_matches(value: dict[str, object], rule: DictRule) -> bool:
    """Whether each value equals one of its key's values and no needed key is missing."""
    allowed, needed = rule
    for key, item in value.items():
        values = allowed.get(key)
        if values is None or item not in values:
            return False
    return needed <= value.keys()


def all_dicts_match(value: list[object], rules: Sequence[DictRule]) -> bool:
    """Whether each item is a dict matching the rule at its place (`dict_matches`)."""
    for item, rule in zip(value, rules, strict=True):
        if type(item) is not dict or not dict_matches(item, rule):
            return False
    return True


def dict_check(param: str, value: Mapping[str, object], options: Sequence[object]) -> BfclCheck:
    """BFCL's `dict_checker`: one level deep, each key against its list of values."""
    last = fail("dict_checker:unclear", f"No possible answer for {param!r}.", param)
    for option in options:
        if option == "":
            continue
        if not isinstance(option, Mapping):
            return fail("bad_answer", f"dict answer for {param!r} is not an object", param)
        last = _dict_one(param, value, option)
        if last.valid:
            return OK
    return last


def _dict_one(param: str, value: Mapping[str, object], option: Mapping[str, object]) -> BfclCheck:
    for key, item in value.items():
        if key not in option:
            return fail("value_error:dict_key", f"Unexpected dict key parameter: {key!r}.", param)
        wanted = [std(o) for o in _key_options(option[key])]
        if not contains(wanted, std(item)):
            return fail(
                "value_error:dict_value",
                f"Invalid value for parameter {key!r}: {item!r}. Expected one of {wanted}.",
                param,
            )
    for key, item in option.items():
        # BFCL asks `"" in item`, always true of a bare string: such a key may be left out.
        if key not in value and type(item) is not str and "" not in as_list(item):
            return fail("value_error:dict_key", f"Missing dict key parameter: {key!r}.", param)
    return OK


def _key_options(item: object) -> list[object]:
    """A dict answer's values for one key, as BFCL reads them: by index.

    A list gives its values; a bare string (not in a list, simple_java_64) its
    characters, so that no value of several characters matches it.
    """
    return list(item) if type(item) is str else as_list(item)


def list_dict_check(param: str, value: list[object], options: Sequence[object]) -> BfclCheck:
    """BFCL's `list_dict_checker`: dicts in order against each candidate list."""
    last = fail("list_dict_checker:unclear", f"No possible answer for {param!r}.", param)
    for option in options:
        if not isinstance(option, list | str) or len(value) != len(option):
            last = fail(
                "value_error:list_dict_count", "Wrong number of dictionaries in the list.", param
            )
            continue
        for item, wanted in zip(value, option, strict=True):
            if not isinstance(item, Mapping):
                # BFCL would crash here (`.items()` on a non-dict); count it as wrong.
                last = fail("value_error:list_dict_item", f"{item!r} is not a dict", param)
                break
            last = dict_check(param, item, [wanted])
            if not last.valid:
                break
        else:
            return OK
    return last
