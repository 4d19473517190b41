"""BFCL's multi-turn checker, reproduced: `check_multi_turn` and the conversation hook.

`check_multi_turn` gives the check bfcl-eval 2026.3.23 gives one multi-turn entry
(`_evaluate_single_multi_turn_entry` in eval_checker/eval_runner.py and
`multi_turn_checker` in eval_checker/multi_turn_eval/multi_turn_checker.py):

1. a `result` that is not a list: `multi_turn:inference_error`; a number of turns that
   is not the ground truth's: `multi_turn:force_terminated`;
2. every step is decoded (`toolgrade.bfcl._mt_decode`); steps that fail or decode to
   no call are dropped;
3. turn by turn, the model's steps run on the model's instances, the ground truth's
   calls on the ground truth's (`toolgrade.bfcl._mt_execute`), both kept across turns
   — the ground truth's side only from the first turn where the model's calls are not
   the ground truth's (`toolgrade.bfcl._mt_lockstep`: until then it would be the
   model's own, state for state and result for result);
4. a turn with ground-truth calls needs at least one model step
   (`multi_turn:empty_turn_model_response`); a turn without any is not checked (its
   calls still ran); then every public attribute of every ground-truth instance must
   equal the model's (`multi_turn:instance_state_mismatch`), and this turn's
   ground-truth results must all be among the model's results of all turns so far,
   as a multiset (`multi_turn:execution_response_mismatch`);
5. the first failing turn decides; else the entry is valid.

BFCL names its instances after the model (the result folder's name); the name shows
only where a model writes `name(` inside a string argument (BFCL rewrites it there
too). `MODEL_NAME`, `toolgrade`, stands in for it unless a caller gives another.

`judge_bfcl_conversation` is the `bfcl` profile's conversation judge, for conversations
imported from BFCL (environment `toolgrade.bfcl._mt_apis:BfclApis`): the model's steps
are the turns' steps' raw outputs, the ground truth the conversation's reference; the
check becomes its `Verdict` (`MultiTurnCheck.verdict`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import ConversationRecord, FirstFailure
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import Status
from toolgrade.backends import NO_RECORDED_RESPONSE
from toolgrade.bfcl._mt_apis import ENVIRONMENT_CLASS, is_long_context
from toolgrade.bfcl._mt_decode import DecodeError, bfcl_step, decode_step
from toolgrade.bfcl._mt_execute import BfclSide
from toolgrade.bfcl._mt_lockstep import lockstep_allowed, same_calls

if TYPE_CHECKING:
    from toolgrade.environments import TurnRun
    from toolgrade.suite import Case, Suite

__all__ = [
    "MODEL_NAME",
    "MultiTurnCheck",
    "MultiTurnEntry",
    "call_text",
    "check_multi_turn",
    "entry_from_conversation",
    "judge_bfcl_conversation",
    "steps_from_runs",
]

MODEL_NAME = "toolgrade"
"""The model name BFCL's instance names are built from, unless one is given."""

ErrorType = Literal[
    "multi_turn:inference_error",
    "multi_turn:force_terminated",
    "multi_turn:empty_turn_model_response",
    "multi_turn:instance_state_mismatch",
    "multi_turn:execution_response_mismatch",
]
_CAUSES: Mapping[str, Status] = {
    "multi_turn:inference_error": Status.ERROR,
    "multi_turn:force_terminated": Status.STEP_LIMIT,
    "multi_turn:empty_turn_model_response": Status.MISSED_CALL,
    "multi_turn:instance_state_mismatch": Status.STATE_MISMATCH,
    "multi_turn:execution_response_mismatch": Status.MISSED_CALL,
}


@dataclass(frozen=True, slots=True)
class MultiTurnEntry:
    """What BFCL's checker reads of one entry."""

    id: str
    """BFCL's id, e.g. `multi_turn_base_0` (instance names are built from it)."""
    involved_classes: tuple[str, ...]
    """The API classes, in order."""
    initial_config: Mapping[str, Any]
    """Per class name, the scenario its `_load_scenario` gets."""
    ground_truth: tuple[tuple[str, ...], ...]
    """Per turn, the ground-truth calls as Python call text."""
    long_context: bool = False
    """Load the scenarios with BFCL's long-context extensions (BFCL derives it from the id)."""

    @classmethod
    def from_bfcl(
        cls,
        entry_id: str,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any],
        ground_truth: Sequence[Sequence[str]],
    ) -> MultiTurnEntry:
        """An entry from BFCL's data, `long_context` derived from the id as BFCL does."""
        return cls(
            entry_id,
            tuple(involved_classes),
            initial_config,
            tuple(tuple(t) for t in ground_truth),
            is_long_context(entry_id),
        )


@dataclass(frozen=True, slots=True)
class MultiTurnCheck:
    """BFCL's check of one entry."""

    valid: bool
    """Whether the entry passed."""
    error_type: ErrorType | None = None
    """BFCL's error type (`multi_turn:...`), None when valid."""
    message: str = ""
    """BFCL's error message (with the differing attributes or missing results)."""
    turn: int | None = None
    """The turn that failed, when one did."""

    @property
    def failure_message(self) -> str:
        """`error_type: message` (empty when valid), for `first_failure.message`."""
        return f"{self.error_type}: {self.message}" if self.error_type else ""

    @property
    def cause(self) -> Status | None:
        """Toolgrade's failure cause for the error type, None when valid."""
        return None if self.error_type is None else _CAUSES[self.error_type]

    def verdict(self) -> Verdict:
        """The check as a conversation profile's verdict.

        `correct`, or the failure cause with the failing turn and `error_type: message`
        in its record's first failure.
        """
        if self.cause is None:
            return _PASSED
        first = FirstFailure(cause=self.cause, message=self.failure_message, turn=self.turn)
        record = ConversationRecord(first_failure=first)
        return Verdict(self.cause, 0.0, record=record, rubric="binary")


_PASSED = Verdict(Status.CORRECT, 1.0, rubric="binary")


def check_multi_turn(
    entry: MultiTurnEntry,
    steps: Sequence[Sequence[JsonValue]] | JsonValue,
    *,
    prompt_mode: bool,
    model_name: str = MODEL_NAME,
) -> MultiTurnCheck:
    """BFCL's check of a model's steps (see the module docstring).

    Args:
        entry: the entry (ground truth, classes, scenario).
        steps: BFCL's `result`: per turn, the raw output of each step — an assistant
            message (toolgrade's `Step.raw_response`), BFCL's function-calling form
            (`[{name: arguments}]`) or text.
        prompt_mode: decode text as BFCL's prompting handlers do (else text is dropped,
            as by its function-calling handlers).
        model_name: the name BFCL's instance names start with.

    Raises:
        ConfigError: bfcl-eval (or mpmath) is not installed.
    """
    if not isinstance(steps, list | tuple):
        message = "Error during inference phase. Model did not output a list of model responses."
        return MultiTurnCheck(False, "multi_turn:inference_error", message)
    truth = entry.ground_truth
    if len(steps) != len(truth):
        message = (
            "Model was force-terminated during inference phase. The length of the model"
            f" result turns ({len(steps)}) does not match the length of the ground truth"
            f" turns ({len(truth)})."
        )
        return MultiTurnCheck(False, "multi_turn:force_terminated", message)
    decoded: list[list[list[str]]] = []
    for turn in steps:
        if not isinstance(turn, list | tuple | str | dict):  # BFCL crashes iterating it
            message = f"a turn is not a list of steps: {type(turn).__name__}"
            return MultiTurnCheck(False, "multi_turn:inference_error", message)
        decoded.append(_decode_turn(turn, prompt_mode=prompt_mode))
    return _check(entry, decoded, model_name)


def _decode_turn(
    turn: Sequence[JsonValue] | str | dict[str, JsonValue], *, prompt_mode: bool
) -> list[list[str]]:
    """The turn's steps as call strings; failed and empty steps dropped."""
    out: list[list[str]] = []
    for step in turn:
        try:
            calls = decode_step(bfcl_step(step, prompt_mode=prompt_mode), prompt_mode=prompt_mode)
        except DecodeError:
            continue
        if calls:
            out.append(calls)
    return out


def _check(
    entry: MultiTurnEntry, decoded: list[list[list[str]]], model_name: str
) -> MultiTurnCheck:
    """`multi_turn_checker` on decoded steps."""

    def side(name: str) -> BfclSide:
        return BfclSide(
            entry.involved_classes,
            entry.initial_config,
            long_context=entry.long_context,
            model_name=name,
            entry_id=entry.id,
        )

    model: BfclSide | None = None  # built on the model's first step, as BFCL does
    truth: BfclSide | None = None  # built once the model leaves the ground truth's calls
    lockstep = lockstep_allowed(entry.involved_classes, long_context=entry.long_context)
    all_results: list[str] = []
    for index, calls in enumerate(entry.ground_truth):
        for step in decoded[index]:
            model = model or side(model_name)
            all_results.extend(model.execute(step))
        if truth is None:
            if lockstep and same_calls([c for step in decoded[index] for c in step], calls):
                continue  # the ground truth's instances and results would be the model's own
            truth = side(model_name + "_ground_truth")
            for earlier in entry.ground_truth[:index]:
                truth.execute(earlier)
        expected = truth.execute(calls)
        if not calls:
            continue
        if not decoded[index] or model is None:
            message = f"Model response list is empty for turn {index}"
            return MultiTurnCheck(False, "multi_turn:empty_turn_model_response", message, index)
        for class_name, reference in truth.instances.items():
            differences = _differences(model.instances[class_name], reference)
            if differences:
                message = (
                    f"Model instance for {class_name} does not match the state with ground"
                    f" truth instance. Differences: {', '.join(differences)}"
                )
                return MultiTurnCheck(False, "multi_turn:instance_state_mismatch", message, index)
        missing = _missing(expected, all_results)
        if missing:
            message = (
                "Model response execution results so far does not contain all the ground"
                f" truth response execution results for turn {index}. Missing: {missing}"
            )
            return MultiTurnCheck(False, "multi_turn:execution_response_mismatch", message, index)
    return MultiTurnCheck(True)


def _differences(model: object, reference: object) -> list[str]:
    """`_compare_instances`: the public attributes of `reference` the model differs in."""
    return [
        name
        for name in vars(reference)
        if not name.startswith("_") and getattr(model, name) != getattr(reference, name)
    ]


def _missing(expected: Sequence[str], found: Sequence[str]) -> list[str]:
    """`_is_subsequence_unordered`: the expected results not in `found` (a multiset)."""
    pool = list(found)
    missing: list[str] = []
    for item in expected:
        try:
            pool.remove(item)
        except ValueError:
            missing.append(item)
    return missing


def call_text(name: str, arguments: Mapping[str, JsonValue]) -> str:
    """A call as Python text, its arguments by keyword (`cd(folder='docs')`).

    Examples:
        >>> call_text("cd", {"folder": "docs", "deep": [1, True]})
        "cd(folder='docs', deep=[1, True])"
    """
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def entry_from_conversation(conversation: Case) -> MultiTurnEntry:
    """The BFCL entry of an imported conversation (its initial state and reference).

    Raises:
        ValueError: the conversation has no reference or a malformed initial state.
    """
    state = conversation.initial_state
    classes = state.get("involved_classes")
    config = state.get("initial_config", {})
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise ValueError("initial_state has no involved_classes list")
    if not isinstance(config, dict):
        raise ValueError("initial_state's initial_config is not an object")
    if conversation.reference is None:
        raise ValueError("the conversation has no reference (BFCL's ground truth)")
    truth = tuple(
        tuple(call_text(c.name, c.arguments) for c in turn.calls) for turn in conversation.reference
    )
    long_context = state.get("long_context", is_long_context(conversation.id))
    return MultiTurnEntry(
        conversation.id, tuple(str(c) for c in classes), config, truth, bool(long_context)
    )


def steps_from_runs(runs: Sequence[TurnRun], *, total_turns: int) -> list[list[JsonValue]] | str:
    """BFCL's `result` for turns as run: each turn's steps' raw outputs.

    A failed request is an inference error (BFCL records the error text as the whole
    result), except a replay's `no recorded response` at a turn's first step, where the
    replayed result's turns end. A turn that hit its step limit ends the result there,
    as BFCL's inference stops after a force-quit turn.
    """
    out: list[list[JsonValue]] = []
    for run in runs:
        if run.error is not None and _replay_ended(run):
            break  # a replayed BFCL result with fewer turns: its recorded turns end here
        if run.error is not None:
            return f"Error during inference: {run.error}"
        out.append([s.raw_response for s in run.steps])
        if run.step_limit and len(out) < total_turns:
            break
    return out


def _replay_ended(run: TurnRun) -> bool:
    """Whether the replay backend found no recorded step at all for this turn."""
    error = run.error or ""
    return (
        error.startswith(NO_RECORDED_RESPONSE)
        and f"turn {run.index} step 0" in error
        and all(s.raw_response is None for s in run.steps)
    )


def judge_bfcl_conversation(
    suite: Suite,
    conversation: Case,
    runs: Sequence[TurnRun],
    *,
    prompt_mode: bool,
) -> Verdict | None:
    """The `bfcl` profile of a conversation: BFCL's check as a verdict (None: not BFCL's).

    Raises:
        ConfigError: bfcl-eval (or mpmath) is not installed.
    """
    environment = suite.environments.get(conversation.environment or "")
    if getattr(environment, "class_", None) != ENVIRONMENT_CLASS:
        return None
    try:
        entry = entry_from_conversation(conversation)
    except ValueError as exc:
        message = f"not a BFCL entry: {exc}"
        return MultiTurnCheck(False, "multi_turn:inference_error", message).verdict()
    result = steps_from_runs(runs, total_turns=len(conversation.turns))
    return check_multi_turn(entry, result, prompt_mode=prompt_mode).verdict()
