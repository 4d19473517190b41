"""Importing BFCL's multi-turn categories (from the installed bfcl-eval) as conversations."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api")

from typer.testing import CliRunner

import toolgrade
from toolgrade.bfcl._data import MultiTurnCategory, open_bfcl_data
from toolgrade.bfcl._mt_apis import BfclApis, is_long_context
from toolgrade.bfcl._mt_import import (
    ADDED_FUNCTIONS_PROMPT,
    BfclMultiTurnEntry,
    bind_ground_truth,
    entry_to_conversation,
    read_multi_turn_entries,
)
from toolgrade.cli import app
from toolgrade.errors import ConfigError, InputError
from toolgrade.judging import check_conversations
from toolgrade.suite import Conversation, Suite, ToolSpec, load_suite

CATEGORIES = [c.value for c in MultiTurnCategory]


@cache
def _suite(category: str) -> Suite:
    return toolgrade.import_bfcl([category])


@cache
def _entries(category: str) -> dict[str, BfclMultiTurnEntry]:
    entries = read_multi_turn_entries(open_bfcl_data(), MultiTurnCategory(category))
    return {e.id: e for e in entries}


def _conversation(suite: Suite, conversation_id: str) -> Conversation:
    return next(c for c in suite.conversations if c.id == conversation_id)


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_category_gives_200_conversations_on_the_bfcl_environment(category: str) -> None:
    suite = _suite(category)
    assert suite.schema_version == 2 and suite.name == "bfcl-multi-turn"
    assert suite.categories == (category,)
    assert suite.version.startswith("bfcl-eval ")
    assert [c.id for c in suite.cases] == [f"{category}_{i}" for i in range(200)]
    assert suite.environments["bfcl"].model_dump(by_alias=True)["class"] == (
        "toolgrade.bfcl._mt_apis:BfclApis"
    )
    entries = _entries(category)
    for conversation in suite.conversations:
        entry = entries[conversation.id]
        assert conversation.category == category
        assert conversation.tags == ("bfcl", category)
        assert conversation.environment == "bfcl"
        assert conversation.initial_state == {
            "involved_classes": list(entry.involved_classes),
            "initial_config": entry.initial_config,
            "long_context": category == "multi_turn_long_context",
        }
        assert len(conversation.turns) == len(entry.turns)
        for turn, texts in zip(conversation.turns, entry.turns, strict=True):
            assert turn.user == ("\n\n".join(texts) if texts else ADDED_FUNCTIONS_PROMPT)
            assert turn.order == "any" and turn.max_steps == 21
        assert conversation.checks.final_state is None and not conversation.checks.forbidden


def test_every_reference_is_the_ground_truth_bound_to_parameter_names() -> None:
    calls = 0
    for category in CATEGORIES:
        entries = _entries(category)
        for conversation in _suite(category).conversations:
            truth = entries[conversation.id].ground_truth
            assert conversation.reference is not None
            for turn, reference, texts in zip(
                conversation.turns, conversation.reference, truth, strict=True
            ):
                assert turn.expected == reference.calls and reference.reply == ""
                assert [c.name for c in reference.calls] == [t.split("(")[0] for t in texts]
                calls += len(texts)
    assert calls == 4625
    # Positional arguments get their parameter's name.
    miss = _conversation(_suite("multi_turn_miss_func"), "multi_turn_miss_func_0")
    assert miss.reference is not None
    assert [c.model_dump() for c in miss.reference[3].calls] == [
        {"name": "sort", "arguments": {"file_name": "final_report.pdf"}}
    ]
    assert bind_ground_truth("post_tweet('hi', tags=['#a'])").arguments == {
        "content": "hi",
        "tags": ["#a"],
    }


def test_bound_ground_truth_runs_as_bfcl_runs_the_call_text() -> None:
    """Each turn's bound calls on BfclApis give BFCL's own result strings and state."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
        execute_multi_turn_func_call,
    )

    def as_bfcl(value: object) -> str:  # BFCL's conversion of a result to text
        if type(value) is dict:
            try:
                return json.dumps(value)
            except TypeError:  # mpmath numbers
                return str(value)
        return value if type(value) is str else str(value)

    for category in CATEGORIES:
        for entry in _entries(category).values():
            lc = is_long_context(entry.id)
            apis = BfclApis(entry.involved_classes, entry.initial_config, lc)
            for texts in entry.ground_truth:
                theirs, instances = execute_multi_turn_func_call(
                    list(texts),
                    entry.initial_config,
                    list(entry.involved_classes),
                    "toolgrade_test_mt_import",
                    entry.id,
                    long_context=lc,
                    is_evaL_run=True,
                )
                ours = []
                for text in texts:
                    call = bind_ground_truth(text)
                    ours.append(as_bfcl(getattr(apis, call.name)(**call.arguments)))
                assert ours == theirs, entry.id
                for name, instance in instances.items():
                    mine = apis.instances[name]
                    for key, value in vars(instance).items():
                        if not key.startswith("_"):
                            assert getattr(mine, key) == value, (entry.id, name, key)


def test_miss_func_withholds_functions_until_their_turn() -> None:
    suite = _suite("multi_turn_miss_func")
    conversation = _conversation(suite, "multi_turn_miss_func_0")
    entry = _entries("multi_turn_miss_func")["multi_turn_miss_func_0"]
    assert entry.missed_function == {3: ("sort",)}
    held = conversation.turns[3]
    assert held.user == ADDED_FUNCTIONS_PROMPT and held.add_tools == ("sort",)
    assert all(not t.add_tools for i, t in enumerate(conversation.turns) if i != 3)
    assert conversation.tools is not None and "sort" not in conversation.tools
    names = [[t.name for t in suite.tools_for_turn(conversation, i)] for i in range(5)]
    assert all("sort" not in n for n in names[:3])
    # BFCL appends the held-out docs to the end of the list.
    assert names[3][-1] == "sort" and names[4][-1] == "sort"
    # Offered in the suite's order (BFCL offers them in involved_classes order).
    assert set(names[0]) == set(conversation.tools)
    for conversation in suite.conversations:
        adding = sum(1 for t in conversation.turns if t.add_tools)
        assert adding == (2 if conversation.id == "multi_turn_miss_func_49" else 1)


def test_tools_follow_involved_classes_docs() -> None:
    suite = _suite("multi_turn_base")
    assert len(suite.tools) == 128
    cd = suite.tool("cd")
    assert cd is not None
    assert cd.parameters["properties"] == {
        "folder": {
            "type": "string",
            "description": "The folder of the directory to change to. "
            "You can only change one folder level at a time. ",
        }
    }
    assert cd.description.endswith("Note that the provided function is in Python 3 syntax.")
    conversation = _conversation(suite, "multi_turn_base_0")
    assert conversation.initial_state["involved_classes"] == ["TwitterAPI", "GorillaFileSystem"]
    assert conversation.tools is not None
    assert conversation.tools[0] == "authenticate_twitter" and conversation.tools[14] == "cat"
    assert len(conversation.tools) == 14 + 18


def test_bfcl_data_repairs_are_made_and_told() -> None:
    base = _conversation(_suite("multi_turn_base"), "multi_turn_base_173")
    (close,) = base.tool_definitions
    assert close.name == "close_ticket"
    props = close.parameters["properties"]
    assert isinstance(props, dict) and props["ticket_id"]["type"] == ["integer", "string"]  # type: ignore[index]
    assert base.notes is not None and "close_ticket.ticket_id also accepts string" in base.notes
    early = _conversation(_suite("multi_turn_miss_func"), "multi_turn_miss_func_49")
    assert [t.add_tools for t in early.turns] == [(), ("tail",), (), ("wc", "cat"), ()]
    assert early.turns[3].user == ADDED_FUNCTIONS_PROMPT
    assert early.notes is not None and "tail is offered from turn 2" in early.notes
    repaired = [c.id for cat in CATEGORIES for c in _suite(cat).conversations if c.tool_definitions]
    assert repaired == [f"{c}_173" for c in CATEGORIES]


@pytest.mark.slow
@pytest.mark.parametrize("category", CATEGORIES)
def test_the_suite_validates_and_every_reference_holds_up(category: str) -> None:
    suite = toolgrade.parse_suite(json.dumps(_suite(category).to_dict()))
    assert suite == _suite(category)
    assert check_conversations(suite, base_dir=None) == []


def test_single_and_multi_turn_categories_do_not_mix() -> None:
    with pytest.raises(ConfigError, match="import multi_turn_base and simple_python separately"):
        toolgrade.import_bfcl(["multi_turn_base", "simple_python"])


def test_categories_list_multi_turn_sizes() -> None:
    sizes = dict(toolgrade.bfcl_categories())
    assert all(sizes[c] == 200 for c in CATEGORIES)


def _entry(**changes: object) -> BfclMultiTurnEntry:
    fields: dict[str, object] = {
        "id": "multi_turn_base_9",
        "turns": (("List the files.",),),
        "involved_classes": ("GorillaFileSystem",),
        "initial_config": {},
        "ground_truth": (("ls(a=True)",),),
    }
    fields.update(changes)
    return BfclMultiTurnEntry(**fields)  # type: ignore[arg-type]


def _docs() -> dict[str, list[ToolSpec]]:
    return {"GorillaFileSystem": [t for t in _suite("multi_turn_base").tools if t.name == "ls"]}


def test_an_entry_converts_and_malformed_ones_are_refused() -> None:
    category = MultiTurnCategory.BASE
    ok = entry_to_conversation(_entry(), category, _docs())
    assert ok.turns[0].expected is not None
    assert ok.turns[0].expected[0].arguments == {"a": True}
    with pytest.raises(InputError, match="turn 1 must have user messages"):
        entry_to_conversation(_entry(turns=((),)), category, _docs())
    with pytest.raises(InputError, match="unknown API class 'Nope'"):
        entry_to_conversation(_entry(involved_classes=("Nope",)), category, _docs())
    with pytest.raises(InputError, match="missed function"):
        entry_to_conversation(_entry(missed_function={0: ("rm",)}), category, _docs())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ls(a=__import__('os'))", "not a literal"),
        ("os.system('ls')", "not a call of a named function"),
        ("ls(", "is not a call"),
        ("_load_scenario({})", "which no BFCL API class has"),
        ("nope()", "which no BFCL API class has"),
        ("ls(**{'a': True})", r"unpacks arguments"),
        ("cd('a', 'b')", "does not fit cd"),
        ("mean([{1, 2}])", "JSON cannot hold"),
    ],
)
def test_ground_truth_text_is_parsed_never_evaluated(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        bind_ground_truth(text)


def test_missing_multi_turn_files_name_them(tmp_path: Path) -> None:
    (tmp_path / "BFCL_v4_multi_turn_base.json").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"possible_answer/BFCL_v4_multi_turn_base\.json"):
        toolgrade.import_bfcl(["multi_turn_base"], data_dir=tmp_path)


def test_cli_import_writes_the_conversation_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["import", "bfcl", "-c", "multi_turn_miss_func", "-o", "f.json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "200 conversations" in result.output
    suite = load_suite(tmp_path / "f.json")
    assert suite.to_dict() == _suite("multi_turn_miss_func").to_dict()
    listed = CliRunner().invoke(app, ["import", "bfcl", "--json"])
    assert {"category": "multi_turn_long_context", "entries": 200} in json.loads(listed.output)
