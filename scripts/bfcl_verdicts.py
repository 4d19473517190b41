"""Record bfcl-eval's own verdicts on the agreement corpus (run by `make bfcl-verdicts`).

Runs inside the bfcl-eval venv (.venv-bfcl), never in toolgrade's: it builds the corpus
(scripts/bfcl_corpus.py) from the installed bfcl_eval package's data, decodes and checks
every output exactly as BFCL's evaluator does (`_evaluate_single_ast_entry` and
`_evaluate_single_relevance_entry` in bfcl_eval/eval_checker/eval_runner.py), and writes
tests/data/bfcl/corpus.jsonl.gz. Then the multi-turn corpus (scripts/bfcl_mt_corpus.py),
judged by `_evaluate_single_multi_turn_entry`'s steps and BFCL's `multi_turn_checker`
(its API classes need mpmath), into tests/data/bfcl/multi_turn_corpus.jsonl.gz.

Two accommodations, neither of which touches the checker's logic:
- `BFCL_PROJECT_ROOT` points at a temporary folder (unless already set): bfcl_eval
  creates folders there on import.
- `bfcl_eval.constants.model_config` imports the SDK of every vendor BFCL supports (some
  forty packages); the checker reads one field of it, `underscore_to_dot`. A small
  stand-in registry provides that field for two model names: `prompting-model` (names
  kept, as for prompting models) and `fc-model` (dots -> underscores, as for OpenAI-style
  function-calling models).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import importlib
import importlib.util
import inspect
import json
import os
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bfcl_corpus
import bfcl_mt_corpus

PROMPTING_MODEL = "prompting-model"
FC_MODEL = "fc-model"


@dataclass
class _ModelConfig:
    underscore_to_dot: bool


def _install_registry_stand_in() -> None:
    stand_in = types.ModuleType("bfcl_eval.constants.model_config")
    stand_in.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
        PROMPTING_MODEL: _ModelConfig(underscore_to_dot=False),
        FC_MODEL: _ModelConfig(underscore_to_dot=True),
    }
    sys.modules["bfcl_eval.constants.model_config"] = stand_in


def _data_folder() -> Path:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("bfcl_eval is not installed in this interpreter (run `make bfcl-verdicts`)")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


class Checker:
    """BFCL's decode + check of one output, as its evaluator runs them."""

    def __init__(self) -> None:
        _install_registry_stand_in()
        from bfcl_eval.constants.enums import Language, ReturnFormat
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
        from bfcl_eval.utils import is_empty_output, is_function_calling_format_output

        self.languages = {
            "python": (Language.PYTHON, ReturnFormat.PYTHON),
            "java": (Language.JAVA, ReturnFormat.JAVA),
            "javascript": (Language.JAVASCRIPT, ReturnFormat.JAVASCRIPT),
        }
        self.ast_checker = ast_checker
        self.decode_prompting = default_decode_ast_prompting
        self.is_empty_output = is_empty_output
        self.is_format = is_function_calling_format_output

    def decode(self, output: Any, style: str, return_format: Any) -> Any:
        if style == "fc":
            # The OpenAI function-calling handler's decode_ast.
            decoded = []
            for invoked in output:
                name = next(iter(invoked))
                decoded.append({name: json.loads(invoked[name])})
            return decoded
        return self.decode_prompting(output, return_format, False)

    def verdict(
        self, group: dict[str, Any], item: dict[str, Any], *, model: str | None = None
    ) -> dict[str, Any]:
        category = group["category"]
        language, return_format = self.languages[bfcl_corpus.LANGUAGES.get(category, "python")]
        if model is None:
            model = FC_MODEL if item["style"] == "fc" else PROMPTING_MODEL
        if group["possible_answer"] is None:
            return self._relevance(category, item, return_format)
        try:
            decoded = self.decode(item["output"], item["style"], return_format)
        except Exception:
            return {"valid": False, "error_type": "ast_decoder:decoder_failed"}
        if not self.is_format(decoded):
            return {"valid": False, "error_type": "ast_decoder:decoder_wrong_output_format"}
        try:
            result = self.ast_checker(
                group["functions"], decoded, group["possible_answer"], language, category, model
            )
        except Exception as exc:
            return {"valid": False, "error_type": "checker_crash", "crash": repr(exc)[:200]}
        return {"valid": bool(result["valid"]), "error_type": result.get("error_type", "")}

    def _relevance(self, category: str, item: dict[str, Any], return_format: Any) -> dict[str, Any]:
        try:
            decoded = self.decode(item["output"], item["style"], return_format)
            contains_call = not self.is_empty_output(decoded)
        except Exception:
            contains_call = False
        irrelevance = category in ("irrelevance", "live_irrelevance")
        valid = not contains_call if irrelevance else contains_call
        error = "" if valid else ("irrelevance_error" if irrelevance else "relevance_error")
        return {"valid": valid, "error_type": error}


def build(out: Path) -> tuple[int, int]:
    checker = Checker()
    groups = bfcl_corpus.load_groups(_data_folder())
    lines: list[str] = []
    total = passed = 0
    for group in groups:
        outputs = []
        for item in bfcl_corpus.outputs_for(group):
            item["bfcl"] = checker.verdict(group, item)
            outputs.append(item)
            total += 1
            passed += item["bfcl"]["valid"]
        record = {k: v for k, v in group.items() if k != "traps"}
        record["outputs"] = outputs
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    _write_gzip(out, lines)
    return total, passed


def check_rules(path: Path) -> int:
    """Check the hand-written rule table's verdicts against BFCL's checker."""
    checker = Checker()
    wrong = 0
    for case in json.loads(path.read_text(encoding="utf-8")):
        group = {
            "category": case["category"],
            "functions": case["functions"],
            "possible_answer": case["answer"],
        }
        output = [{c["name"]: json.dumps(c["arguments"])} for c in case["output"]]
        style = "fc"
        if not case.get("fc_names") and case["category"] not in bfcl_corpus.NO_ANSWER:
            # Prompting-model naming: BFCL keeps the dotted names.
            checker_model = PROMPTING_MODEL
        else:
            checker_model = FC_MODEL
        verdict = checker.verdict(group, {"style": style, "output": output}, model=checker_model)
        if verdict["valid"] != case["valid"]:
            wrong += 1
            print(f"{path}: {case['description']!r}: BFCL says {verdict}")
    return wrong


class MultiTurnChecker:
    """BFCL's multi-turn evaluation of one `result` (`_evaluate_single_multi_turn_entry`).

    eval_runner.py's function is reproduced line for line (importing eval_runner needs
    BFCL's whole dependency list); the checker itself is bfcl-eval's `multi_turn_checker`.
    Every evaluation gets its own model name, so that no instance is reused.
    """

    def __init__(self) -> None:
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
            is_empty_execute_response,
        )
        from bfcl_eval.model_handler.utils import (
            convert_to_function_call,
            default_decode_execute_prompting,
        )

        self.checker = multi_turn_checker
        self.is_empty = is_empty_execute_response
        self.decoders = {
            "fc": lambda step, has_tool_call_tag=False: convert_to_function_call(step),
            "prompt": default_decode_execute_prompting,
        }
        self.methods = _bfcl_methods()

    def bind(self, text: str) -> tuple[str, dict[str, Any]]:
        """A ground-truth call with its positional arguments named (BFCL's signatures)."""
        node = ast.parse(text, mode="eval").body
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        bound = inspect.signature(self.methods[node.func.id]).bind(None, *args, **kwargs)
        return node.func.id, dict(list(bound.arguments.items())[1:])

    def verdict(self, entry: dict[str, Any], result: Any, style: str, model: str) -> dict[str, Any]:
        decode = self.decoders[style]
        truth = entry["ground_truth"]
        if type(result) != list:  # noqa: E721 - BFCL's own test
            return {"valid": False, "error_type": "multi_turn:inference_error"}
        if len(result) != len(truth):
            return {"valid": False, "error_type": "multi_turn:force_terminated"}
        decoded = []
        for turn in result:
            turn_decoded = []
            for step in turn:
                try:
                    calls = decode(step, has_tool_call_tag=False)
                    if self.is_empty(calls):
                        continue
                    turn_decoded.append(calls)
                except Exception:
                    continue
            decoded.append(turn_decoded)
        prompt = {k: entry[k] for k in ("id", "initial_config", "involved_classes")}
        category = entry["id"].rsplit("_", 1)[0]
        try:
            checked = self.checker(decoded, truth, prompt, category, model)
        except Exception as exc:
            return {"valid": False, "error_type": "checker_crash", "crash": repr(exc)[:200]}
        return {"valid": bool(checked["valid"]), "error_type": checked.get("error_type", "")}


def _bfcl_methods() -> dict[str, Any]:
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    methods: dict[str, Any] = {}
    for name in bfcl_mt_corpus.READ_ONLY:  # the eight multi-turn classes
        module = importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
        for method, function in inspect.getmembers(getattr(module, name), inspect.isfunction):
            if not method.startswith("_"):
                methods[method] = function
    return methods


def build_multi_turn(out: Path) -> tuple[int, int]:
    """Record the multi-turn corpus: ids, variants, results and BFCL's verdicts."""
    checker = MultiTurnChecker()
    lines: list[str] = []
    total = passed = 0
    for entry in bfcl_mt_corpus.read_entries(_data_folder()):
        for item in bfcl_mt_corpus.variants(entry, checker.bind):
            model = f"corpus{total}"
            item = {"id": entry["id"], "model": model, **item}
            item["bfcl"] = checker.verdict(entry, item["result"], item["style"], model)
            total += 1
            passed += item["bfcl"]["valid"]
            lines.append(json.dumps(item, ensure_ascii=False, sort_keys=True))
    _write_gzip(out, lines)
    return total, passed


def _write_gzip(out: Path, lines: list[str]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    with (
        out.open("wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as zipped,
    ):
        zipped.write(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/bfcl/corpus.jsonl.gz"))
    parser.add_argument("--rules", type=Path, default=Path("tests/data/bfcl/rules.json"))
    parser.add_argument(
        "--multi-turn-out", type=Path, default=Path("tests/data/bfcl/multi_turn_corpus.jsonl.gz")
    )
    parser.add_argument("--only-multi-turn", action="store_true", help="skip the AST corpus")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bfcl-root-") as scratch:
        os.environ.setdefault("BFCL_PROJECT_ROOT", scratch)
        if not args.only_multi_turn:
            if check_rules(args.rules):
                sys.exit(f"{args.rules}: some verdicts differ from BFCL's checker")
            print(f"{args.rules}: every verdict is BFCL's")
            total, passed = build(args.out)
            print(
                f"{args.out}: {total} outputs, {passed} pass BFCL's checker, {total - passed} fail"
            )
        total, passed = build_multi_turn(args.multi_turn_out)
        print(f"{args.multi_turn_out}: {total} results, {passed} pass BFCL's checker")


if __name__ == "__main__":
    main()
