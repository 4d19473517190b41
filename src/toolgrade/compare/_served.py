"""A comparison's serving section, from the two runs (`ServingComparison`).

**What changed.** The recorded fields that say how a run was served: from the server's
record (`RunResult.server`) its software and build (`server`, `server_version`,
`ollama_version`), the weights it served (`model_digest`) and the
`system_fingerprint`s it answered with; from the request settings (`RunResult.backend`)
the `mode`, `stream`, `prompt_format`, `base_url` and each `options` key (such as
`tool_choice`). Each difference is said in words, e.g.
`server llama-cpp-python 0.3.36 → 0.3.40` or `option tool_choice auto → (none)`.

**Outcomes as served.** A case's try passes as served when it is correct and every call
it made reached the client as structured `tool_calls` (`toolgrade.serving.delivered`);
repeats are reduced by the majority rule of the model's outcomes (a tie fails). The
paired cases are the comparison's own (scored in both runs), and their verdict is the
comparison's rule over these outcomes (`toolgrade.compare._verdict.decide`).

**Classes and readings.** A case's serving class is its commonest class over its scored
tries (the earliest try wins a tie). A flipped case is filed under the class of its
failing side: a broken case under the candidate's, a fixed case under the baseline's.
A flip in a clean class is the *model's* doing: its answer reached the client whole and
was wrong. A flip in a fault class is the *server's* (how it was served) unless the
model's calls themselves changed: when the failing side passed as the model's, only the
delivery failed (the server's); a fault that damaged or withheld the answer (`empty`,
`truncated`, `malformed_call`, `calls_in_reasoning`, `request_failed`) is the server's;
calls left in the text (`calls_in_text`) are the server's when the other side read the
same calls, and the model's when it did not (the model said something else, or wrote a
call no parser reads).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonValue
from toolgrade.compare._outcomes import Outcome, majority
from toolgrade.compare._serving import FlipGroup, Reading, ServedFlip, ServingComparison
from toolgrade.compare._verdict import decide
from toolgrade.metrics import rate_of, run_is_native
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.serving import ServingClass, delivered, parser_hint, server_of, serving_verdict

__all__ = [
    "SERVING_RECORD",
    "SERVING_SETTINGS",
    "served_outcomes",
    "serving_changes",
    "serving_comparison",
]

SERVING_RECORD = (
    "server",
    "server_version",
    "ollama_version",
    "model_digest",
    "system_fingerprint",
    "system_fingerprints",
)
"""The fields of `RunResult.server` that say how a run was served."""

SERVING_SETTINGS = ("mode", "stream", "prompt_format", "base_url")
"""The fields of `RunResult.backend` that say how a run was served (and each key of its
`options`)."""

_NAMES = {
    "server_version": "server version",
    "ollama_version": "ollama version",
    "model_digest": "model digest",
    "system_fingerprints": "system_fingerprint",
}


def _shown(value: JsonValue) -> str:
    """A recorded value in words: `(none)` when absent, a list joined by commas."""
    if value is None or value == [] or value == "":
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(_shown(v) for v in value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _server_words(base: Mapping[str, JsonValue], cand: Mapping[str, JsonValue]) -> str | None:
    """`server llama-cpp-python 0.3.36 → 0.3.40`: the software and its build together."""
    kinds = base.get("server"), cand.get("server")
    builds = base.get("server_version"), cand.get("server_version")
    if kinds == (None, None) or (kinds[0] == kinds[1] and builds[0] == builds[1]):
        return None
    if kinds[0] == kinds[1]:
        return f"server {_shown(kinds[0])} {_shown(builds[0])} → {_shown(builds[1])}"
    sides = [
        " ".join(_shown(v) for v in (kind, build) if v is not None) or "(none)"
        for kind, build in zip(kinds, builds, strict=True)
    ]
    return f"server {sides[0]} → {sides[1]}"


def serving_changes(baseline: RunResult, candidate: RunResult) -> tuple[str, ...]:
    """The recorded serving fields that differ between two runs, in words.

    Examples:
        >>> serving_changes(run_a, run_b)  # doctest: +SKIP
        ('server llama-cpp-python 0.3.36 → 0.3.40', 'option tool_choice auto → (none)')
    """
    base, cand = baseline.server, candidate.server
    out: list[str] = []
    server = _server_words(base, cand)
    if server is not None:
        out.append(server)
    together = base.get("server") is not None or cand.get("server") is not None
    for key in SERVING_RECORD:
        if key == "server" or (key == "server_version" and together):
            continue  # said with the server above
        b, c = base.get(key), cand.get(key)
        if _shown(b) != _shown(c):
            out.append(f"{_NAMES.get(key, key)} {_shown(b)} → {_shown(c)}")
    settings = baseline.backend, candidate.backend
    for key in SERVING_SETTINGS:
        b, c = (s.get(key) for s in settings)
        if key == "mode":  # a replay records only `prompt`; native is the default
            b, c = b or "native", c or "native"
        if _shown(b) != _shown(c):
            out.append(f"{key} {_shown(b)} → {_shown(c)}")
    options = [s.get("options") for s in settings]
    b_opts, c_opts = (o if isinstance(o, dict) else {} for o in options)
    for key in sorted(b_opts.keys() | c_opts.keys()):
        if _shown(b_opts.get(key)) != _shown(c_opts.get(key)):
            out.append(f"option {key} {_shown(b_opts.get(key))} → {_shown(c_opts.get(key))}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Served:
    """One case of one run as served: its outcome, its class, the calls it read."""

    passed: bool
    """Passed as served (majority over scored tries)."""
    kind: ServingClass
    """Its commonest serving class."""
    fmt: str | None
    """For calls found in text or reasoning, their format."""
    calls: frozenset[str]
    """The calls each scored try read (one signature per try that read some)."""


def _signature(result: CaseResult) -> str:
    """The calls a result read, in order, as one comparable string."""
    if result.conversation is None:
        calls = list(result.actual)
    else:
        calls = [c for turn in result.conversation.turns for s in turn.steps for c in s.calls]
    listed = [[c.name, c.arguments] for c in calls]
    return json.dumps(listed, sort_keys=True, ensure_ascii=False) if listed else ""


def served_outcomes(run: RunResult) -> dict[str, bool]:
    """Each case with a scored result: whether it passed as served (majority of tries).

    A try passes as served when it is `correct` and every call it made came as
    structured `tool_calls` (`serving.delivered`, in the run's mode).
    """
    return {case_id: case.passed for case_id, case in _served_cases(run).items()}


def _served_cases(run: RunResult) -> dict[str, _Served]:
    """Each case with a scored result, as served."""
    native = run_is_native(run.backend)
    tries: defaultdict[str, list[CaseResult]] = defaultdict(list)
    for result in run.results:
        if result.status.scored:
            tries[result.case_id].append(result)
    cases = {}
    for case_id, group in tries.items():
        group.sort(key=lambda r: r.repeat)
        verdicts = [serving_verdict(r, native=native) for r in group]
        ok = sum(r.status is Status.CORRECT and delivered(r, native=native) for r in group)
        kind = Counter(v.kind for v in verdicts).most_common(1)[0][0]
        fmt = next((v.fmt for v in verdicts if v.kind is kind and v.fmt), None)
        calls = frozenset(s for s in map(_signature, group) if s)
        cases[case_id] = _Served(majority(ok, len(group)), kind, fmt, calls)
    return cases


def _reading(failing: _Served, other: _Served, *, right: bool) -> Reading:
    """Whose doing a flip is, from its failing side (see the module's docstring).

    `right`: the failing side passed as the model's (only the delivery failed).
    """
    if failing.kind.clean:
        return "model"
    if right or failing.kind is not ServingClass.CALLS_IN_TEXT:
        return "server"
    return "server" if failing.calls & other.calls else "model"


def _groups(
    flips: Sequence[tuple[str, str, str]],
    base: Mapping[str, _Served],
    cand: Mapping[str, _Served],
    model: tuple[Mapping[str, Outcome], Mapping[str, Outcome]],
    *,
    broken: bool,
    server: str,
) -> tuple[FlipGroup, ...]:
    """Flips `(case id, baseline status, candidate status)` grouped by the failing side."""
    by_kind: dict[ServingClass, list[ServedFlip]] = {}
    formats: dict[ServingClass, Counter[str]] = defaultdict(Counter)
    for case_id, b_status, c_status in flips:
        b, c = base[case_id], cand[case_id]
        failing, other = (c, b) if broken else (b, c)
        right = model[1 if broken else 0][case_id].passed
        reading = _reading(failing, other, right=right)
        flip = ServedFlip(case_id, b_status, c_status, b.kind.value, c.kind.value, reading)
        by_kind.setdefault(failing.kind, []).append(flip)
        if failing.fmt:
            formats[failing.kind][failing.fmt] += 1
    order = sorted(by_kind, key=lambda k: (-len(by_kind[k]), list(ServingClass).index(k)))
    groups = []
    for kind in order:
        common = formats[kind].most_common(1)
        hint = parser_hint(common[0][0], server) if broken and common else None
        groups.append(FlipGroup(kind.value, tuple(by_kind[kind]), hint))
    return tuple(groups)


def serving_comparison(
    baseline: RunResult,
    candidate: RunResult,
    outcomes: tuple[Mapping[str, Outcome], Mapping[str, Outcome], Sequence[str]],
    *,
    threshold: float,
    alpha: float,
    power: float,
) -> ServingComparison:
    """The serving section of a comparison over its paired cases.

    Args:
        baseline: the baseline run.
        candidate: the candidate run.
        outcomes: the model's outcomes of each run and the paired case ids.
        threshold: the change that matters, in points.
        alpha: the significance level.
        power: the power of the minimum detectable effect.
    """
    base_out, cand_out, ids = outcomes
    base, cand = _served_cases(baseline), _served_cases(candidate)
    both = sum(base[i].passed and cand[i].passed for i in ids)
    broken = [i for i in ids if base[i].passed and not cand[i].passed]
    fixed = [i for i in ids if cand[i].passed and not base[i].passed]
    neither = len(ids) - both - len(broken) - len(fixed)
    decision = decide(
        both, len(broken), len(fixed), neither, threshold=threshold, alpha=alpha, power=power
    )
    server = server_of(candidate.server, candidate.model)
    model = (base_out, cand_out)

    def statuses(chosen: Sequence[str]) -> list[tuple[str, str, str]]:
        return [(i, base_out[i].status, cand_out[i].status) for i in chosen]

    model_broken = [i for i in ids if base_out[i].passed and not cand_out[i].passed]
    model_fixed = [i for i in ids if cand_out[i].passed and not base_out[i].passed]
    lost = tuple(
        sum(out[i].passed and not served[i].passed for i in ids)
        for out, served in ((base_out, base), (cand_out, cand))
    )
    return ServingComparison(
        changes=serving_changes(baseline, candidate),
        baseline_native=run_is_native(baseline.backend),
        candidate_native=run_is_native(candidate.backend),
        baseline_accuracy=rate_of(both + len(broken), len(ids)),
        candidate_accuracy=rate_of(both + len(fixed), len(ids)),
        delta=decision.delta,
        delta_interval=decision.delta_interval,
        p_value=decision.p_value,
        verdict=decision.verdict,
        threshold=threshold,
        alpha=alpha,
        power=power,
        equivalence_interval=decision.equivalence,
        mde=decision.mde,
        cases_to_tell=decision.cases_to_tell,
        lost=(lost[0], lost[1]),
        broken=_groups(statuses(model_broken), base, cand, model, broken=True, server=server),
        fixed=_groups(statuses(model_fixed), base, cand, model, broken=False, server=server),
        broken_as_served=_groups(statuses(broken), base, cand, model, broken=True, server=server),
        fixed_as_served=_groups(statuses(fixed), base, cand, model, broken=False, server=server),
    )
