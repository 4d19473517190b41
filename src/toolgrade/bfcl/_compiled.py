"""BFCL's AST checker compiled once per case: the `bfcl` profile's fast path.

`check_calls` (in `_checker`) takes function docs and prepared answers and, for every
argument of every call, looks up its doc entry and its options, maps the doc's type to
a Python type and decides which of BFCL's checks apply. All of that depends on the
case and its tools only, so `compile_checker` does it once: each expected call becomes
a `CallRule` holding, per argument, a `ParamRule` with the lookups done. Checking a
call is then a walk over its arguments.

The rules are `check_calls`'s, unchanged. A `ParamRule` accepts only the values that
evidently pass (of the doc's exact type, and equal to one of the options: a string,
number, list or dict the possible answer lists; Java and JavaScript source text once
converted as BFCL converts it) and hands every other value to `_checker.check_param`,
or, when it has converted the text already, to `check_value` (the rest of it).
`compile_checker(...).check(calls)` gives exactly the check `check_calls` gives, the
first expectation first and then the alternatives (tests/bfcl/test_bfcl_compiled.py
holds it to that on the whole agreement corpus and on mutated and random arguments).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolgrade.bfcl._answer import BfclAnswer, BfclCall, Options, contains
from toolgrade.bfcl._check_result import BfclCheck, fail, valid_pairs
from toolgrade.bfcl._checker import (
    PYTHON_TYPES,
    BfclFunction,
    BfclParam,
    Language,
    check_param,
    check_value,
    doc_for,
)
from toolgrade.bfcl._convert import ConversionUnsupported
from toolgrade.bfcl._dicts import (
    DictRule,
    all_dicts_match,
    dict_list_rules,
    dict_matches,
    dict_rules,
)
from toolgrade.bfcl._source_rules import passing_texts, source_type

__all__ = ["FIRST_PAIR", "CallRule", "CompiledChecker", "ParamRule", "compile_checker"]

_NESTED_PYTHON = ("array", "tuple")
_WRONG_COUNT = fail("wrong_count", "Wrong number of functions.")
FIRST_PAIR = valid_pairs(((0, 0),))
"""The check of one expected call met by the one call made."""


class ParamRule:
    """One argument of one expected call: its doc entry and options, looked up once.

    `check` is chosen once, by the doc's type and the options: it accepts the values
    that evidently pass (a value of the doc's exact type that is one of the options,
    as BFCL compares them) and hands every other value to `check_param` (to
    `check_value`, once it has converted source text), which decides as it always
    did. So it never fails a value `check_param` passes, nor passes one it fails.
    """

    __slots__ = (
        "_answer",
        "_convert",
        "_dict_lists",
        "_dicts",
        "_exact",
        "_items",
        "_language",
        "_lists",
        "_promote",
        "_type",
        "_values",
        "check",
        "options",
        "param",
        "passing",
        "spec",
    )

    def __init__(self, param: str, spec: BfclParam, options: Options, language: Language) -> None:
        self.param = param
        self.spec = spec
        self.options = options
        self._language = language
        self._values = options.values
        self._convert: Callable[[str], object] | None = None
        self._promote = language == "python" and spec.type == "float"
        self._items: type | None = None
        if language == "python":
            expected = PYTHON_TYPES.get(spec.type)
            if spec.type in _NESTED_PYTHON and spec.items is not None:
                self._items = PYTHON_TYPES.get(spec.items)
        else:
            expected, self._items, self._convert = source_type(spec, language)
        self._type = expected
        self._exact = frozenset(v for v in options.values if type(v) is str)
        self._lists = tuple(v for v in options.values if isinstance(v, list))
        answer = self._answer = options.answer_type
        # A possible answer of another type than the doc's: the value names a variable,
        # of either type, and no value check but `in` applies (BFCL's `type_checker`'s
        # is_variable).
        variable = answer is not None and answer is not expected
        self._dicts: tuple[DictRule, ...] = ()
        self._dict_lists: tuple[tuple[DictRule, ...], ...] = ()
        self.check: Callable[[object], BfclCheck | None] = self._general
        if expected is None:
            pass
        elif variable:
            if self._items is None:
                self.check = self._scalar
        elif expected is str:
            self.check = self._str
        elif expected is dict:
            self._dicts = dict_rules(options.values)
            self.check = self._dict
        elif self._items is dict:
            self._dict_lists = dict_list_rules(options.values)
            self.check = self._list_of_dicts
        elif expected is list:
            self.check = self._list
        else:
            self.check = self._scalar
        self.passing: frozenset[str] = frozenset()
        """Strings `check` passes at once (`CallRule.check` tries them before calling it)."""
        if self.check == self._scalar and self._convert is not None:
            self.passing = passing_texts(self._values, self._convert, self._passes)
        elif self.check == self._str:
            self.passing = (
                self._exact if self._convert is None else self._passing_strings(self._exact)
            )

    def _passing_strings(self, options: frozenset[str]) -> frozenset[str]:
        """The source texts of string options (as is, or quoted) that `_str` passes."""
        candidates = {text for option in options for text in (option, f'"{option}"', f"'{option}'")}
        return frozenset(text for text in candidates if self._str(text) is None)

    def _passes(self, value: object) -> bool:
        """Whether a converted value passes `_scalar` at once."""
        kind = type(value)
        return (kind is self._type or kind is self._answer) and contains(self._values, value)

    def _general(self, value: object) -> BfclCheck | None:
        found = check_param(self.param, value, self.spec, self.options, self._language)
        return None if found.valid else found

    def _converted(self, value: object) -> BfclCheck | None:
        """`_general` for source text this rule has converted already.

        The rule's type and item type are those `check_param` would convert the text
        to and check it against, so it decides as `_general` on the text would.
        """
        assert self._type is not None
        found = check_value(self.param, value, self._type, self._items, self.options)
        return None if found.valid else found

    def _scalar(self, value: object) -> BfclCheck | None:
        """A value of the doc's type (or the options') that is an option (`in`, as BFCL's)."""
        given = value
        if self._convert is not None:
            if type(value) is not str:
                return self._general(given)
            if value in self.passing:
                return None
            value = self._convert(value)
            return None if self._passes(value) else self._converted(value)
        if self._promote and type(value) is int:
            value = float(value)  # BFCL lets Python promote an int to float
        kind = type(value)
        if (kind is self._type or kind is self._answer) and contains(self._values, value):
            return None
        return self._general(given)

    def _str(self, value: object) -> BfclCheck | None:
        """A string equal to an option: equal after standardizing, too."""
        if type(value) is str:
            if self._convert is None:
                if value in self._exact:
                    return None
                return self._general(value)
            text = self._convert(value)
            if type(text) is str and text in self._exact:
                return None
            return self._converted(text)
        return self._general(value)

    def _list(self, value: object) -> BfclCheck | None:
        """A list of items of the doc's item type, equal to an option (so standardized, too)."""
        given = value
        if self._convert is not None:
            if type(value) is not str:
                return self._general(given)
            try:
                value = self._convert(value)
            except ConversionUnsupported:
                return self._general(given)
        if type(value) is list:
            items = self._items
            if items is not None:
                for item in value:
                    if type(item) is not items:
                        return self._checked(given, value)
            if value in self._lists:
                return None
        return self._checked(given, value)

    def _checked(self, given: object, value: object) -> BfclCheck | None:
        """`_general(given)`, where `value` is `given` converted when the rule converts."""
        return self._general(given) if self._convert is None else self._converted(value)

    def _dict(self, value: object) -> BfclCheck | None:
        """A dict each of whose values is one of its key's options (so standardized, too)."""
        given = value
        if self._convert is not None:
            if type(value) is not str:
                return self._general(given)
            value = self._convert(value)
        if type(value) is dict:
            for rule in self._dicts:
                if dict_matches(value, rule):
                    return None
        return self._checked(given, value)

    def _list_of_dicts(self, value: object) -> BfclCheck | None:
        """A list of dicts, each matching its place in an option (`_dict`'s way)."""
        if type(value) is list:
            for rules in self._dict_lists:
                if len(rules) == len(value) and all_dicts_match(value, rules):
                    return None
        return self._general(value)


class CallRule:
    """One expected call against its doc: BFCL's `simple_function_checker`, compiled."""

    __slots__ = ("_alias", "_must", "_name", "_needed", "_params", "_required")

    def __init__(self, doc: BfclFunction, answer: BfclAnswer, language: Language) -> None:
        self._name = doc.name
        self._alias = doc.name.replace(".", "_")
        self._required = doc.required
        self._params: dict[str, ParamRule] = {}
        for param, options in answer.options.items():
            spec = doc.params.get(param)
            if spec is not None:
                self._params[param] = ParamRule(param, spec, options, language)
        self._must = tuple(p for p, o in answer.options.items() if not o.optional)
        self._needed = frozenset((*self._required, *self._must))

    def check(self, call: BfclCall) -> BfclCheck | None:
        """The failure of `call` against this expected call, or None when it passes."""
        name = call.name
        if name != self._name and name != self._alias:
            return fail(
                "wrong_func_name", f"Function name {self._name!r} not found in model output."
            )
        args = call.arguments
        complete = self._needed <= args.keys()
        if not complete:
            for param in self._required:
                if param not in args:
                    return fail(
                        "missing_required", f"Missing required parameter: {param!r}.", param
                    )
        params = self._params
        for param, value in args.items():
            rule = params.get(param)
            if rule is None:
                return fail("unexpected_param", f"Unexpected parameter: {param!r}.", param)
            if type(value) is str and value in rule.passing:
                continue
            failure = rule.check(value)
            if failure is not None:
                return failure
        for param in () if complete else self._must:
            if param not in args:
                return fail(
                    "missing_optional",
                    f"Optional parameter {param!r} not provided and not marked as optional.",
                    param,
                )
        return None


Expectation = tuple[CallRule | BfclCheck, ...]
"""One expectation's calls, in order: a rule, or the failure a call without doc gives."""


class CompiledChecker:
    """BFCL's checker for one case and its tools: the expectation, then the alternatives."""

    __slots__ = ("_expectations", "_single", "tools")

    def __init__(self, tools: Sequence[object], expectations: Sequence[Expectation]) -> None:
        self.tools = tuple(tools)
        """The tools compiled for (`fits` compares by identity)."""
        self._expectations = tuple(expectations)
        first = self._expectations[0]
        self._single = first[0] if len(first) == 1 and isinstance(first[0], CallRule) else None

    def fits(self, tools: Sequence[object]) -> bool:
        """Whether these are the tools it was compiled for (the same objects)."""
        mine = self.tools
        if tools is mine:
            return True
        if len(tools) != len(mine):
            return False
        # A loop: several times cheaper than `all` over a generator, for a few tools.
        for a, b in zip(tools, mine, strict=True):  # noqa: SIM110
            if a is not b:
                return False
        return True

    def check(self, actual: Sequence[BfclCall]) -> BfclCheck:
        """BFCL's check: the first expectation's, unless an alternative passes."""
        single = self._single
        if single is not None and len(actual) == 1:  # the commonest case, inline
            failure = single.check(actual[0])
            if failure is None:
                return FIRST_PAIR
            first = failure
        else:
            first = _check_expectation(self._expectations[0], actual)
            if first.valid:
                return first
        for expectation in self._expectations[1:]:
            found = _check_expectation(expectation, actual)
            if found.valid:
                return found
        return first


def compile_checker(
    functions: Sequence[BfclFunction],
    expectations: Sequence[Sequence[BfclAnswer]],
    *,
    language: Language,
    tools: Sequence[object],
) -> CompiledChecker:
    """Compile a case's expectations (the first, then the alternatives) against its docs.

    Args:
        functions: the BFCL docs of the tools, in the tools' order.
        expectations: each expectation's prepared answers.
        language: the language values are checked in.
        tools: the tools the docs come from (kept for `CompiledChecker.fits`).
    """
    compiled: list[Expectation] = []
    for answers in expectations:
        rules: list[CallRule | BfclCheck] = []
        for answer in answers:
            doc = doc_for(functions, answer.name)
            if doc is None:
                rules.append(fail("missing_doc", f"no function doc for {answer.name!r}"))
            else:
                rules.append(CallRule(doc, answer, language))
        compiled.append(tuple(rules))
    return CompiledChecker(tools, compiled)


def _check_expectation(rules: Expectation, actual: Sequence[BfclCall]) -> BfclCheck:
    """`check_calls` with compiled rules: count, then greedy pairing in order."""
    if len(actual) != len(rules):
        return _WRONG_COUNT
    if len(rules) == 1:
        rule = rules[0]
        if isinstance(rule, BfclCheck):
            return rule
        failure = rule.check(actual[0])
        return FIRST_PAIR if failure is None else failure
    used: list[int] = []
    for rule in rules:
        if isinstance(rule, BfclCheck):
            return rule
        failure = None
        for j, call in enumerate(actual):
            if j in used:
                continue
            failure = rule.check(call)
            if failure is None:
                used.append(j)
                break
        if failure is not None:
            return failure
    return valid_pairs(tuple(enumerate(used)))
