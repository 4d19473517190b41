"""The sweep file: a valid file's values, and every problem named by file, key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sweep.helpers import write_suite
from toolgrade.errors import ConfigError
from toolgrade.sweep import load_sweep

ROOT = Path(__file__).resolve().parents[2]

VALID = """\
name = "q4-vs-q8"
repeat = 2
concurrency = 8
temperature = 0.0
seed = 7
parallel = false
profile = "default"

[[models]]
label = "qwen-q4"
model = "vllm/Qwen/Qwen2.5-7B-Instruct"
base_url = ["http://gpu1:8000/v1", "http://gpu2:8000/v1/"]
mode = "prompt"
temperature = 0.2
timeout = 30
options = { top_p = 1.0, stop = ["</s>"] }
prompt_format = "llama3"
max_tokens = 0

[[models]]
label = "qwen-q8"
model = "ollama/qwen3:8b"
base_url = "http://localhost:11434"
stream = false
warmup = false

[[suites]]
suite = "coding-agent"
tags = ["git"]
limit = 5

[[suites]]
suite = "mine.json"
label = "mine"
categories = "simple"
difficulties = ["Easy"]
rubric = "binary"
"""


def _write(tmp_path: Path, text: str) -> Path:
    write_suite(tmp_path / "mine.json", "mine", 3)
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_sweep_config_valid_file_gives_library_values(tmp_path: Path) -> None:
    config = load_sweep(_write(tmp_path, VALID))
    assert config.name == "q4-vs-q8" and config.seed == 7 and config.parallel is False
    q4, q8 = config.models
    assert q4.label == "qwen-q4" and q4.model == "vllm/Qwen/Qwen2.5-7B-Instruct"
    assert q4.endpoints == ("http://gpu1:8000/v1", "http://gpu2:8000/v1")
    assert q4.settings.base_url == "http://gpu1:8000/v1"
    assert q4.settings.mode == "prompt" and q4.settings.prompt_format == "llama3"
    assert q4.settings.temperature == 0.2 and q4.settings.timeout == 30.0
    assert q4.settings.max_tokens is None  # 0: no cap, as on the command line
    assert dict(q4.settings.options) == {"top_p": 1.0, "stop": ["</s>"]}
    assert q4.settings.seed == 7 and q4.repeat == 2 and q4.concurrency == 8
    # Top-level keys are defaults; a model's own keys win.
    assert q8.settings.temperature == 0.0 and q8.settings.stream is False
    assert q8.endpoints == ("http://localhost:11434",) and q8.warmup is False
    builtin, mine = config.suites
    assert builtin.source == "coding-agent" and builtin.label is None
    assert builtin.selection.tags == ("git",) and builtin.selection.limit == 5
    assert mine.source == str((tmp_path / "mine.json").resolve())
    assert mine.selection.categories == ("simple",)
    assert mine.selection.difficulties == ("easy",) and mine.selection.seed == 7
    assert mine.rubric == "binary" and mine.profile == "default"


def test_sweep_config_one_endpoint_is_base_url(tmp_path: Path) -> None:
    config = load_sweep(_write(tmp_path, VALID))
    assert config.models[1].settings.base_url == "http://localhost:11434"
    assert not config.models[1].settings.endpoints


def test_sweep_config_replay_path_is_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "answers.jsonl").write_text("", encoding="utf-8")
    text = 'name = "r"\n[[models]]\nlabel = "a"\nmodel = "replay/answers.jsonl"\n'
    text += '[[suites]]\nsuite = "coding-agent"\n'
    path = tmp_path / "sub" / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    config = load_sweep(path)
    assert config.models[0].model == f"replay/{(tmp_path / 'sub' / 'answers.jsonl').resolve()}"


def test_sweep_example_file_loads() -> None:
    config = load_sweep(ROOT / "examples" / "sweep.toml")
    assert len(config.models) >= 2 and config.suites


def _problem(tmp_path: Path, text: str) -> str:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    message = str(info.value)
    assert message.startswith(str(path)), message  # every error names the file
    assert "Traceback" not in message
    return message


MODEL = '[[models]]\nlabel = "a"\nmodel = "openai/m"\n'
SUITE = '[[suites]]\nsuite = "coding-agent"\n'
BAD = [
    # (file text, what the message must hold: key path and line)
    ('name = "x"\nrepeat = \n' + MODEL + SUITE, "line 2 column 10: invalid TOML"),
    (MODEL + SUITE, "name: missing"),
    ('name = "has space"\n' + MODEL + SUITE, "line 1: name: 'has space' cannot name runs"),
    ('name = "x"\ntemprature = 1\n' + MODEL + SUITE, "line 2: temprature: unknown key (did you"),
    ('name = "x"\n' + SUITE, "models: missing"),
    ('name = "x"\nmodels = "m"\n' + SUITE, "line 2: models: must be an array of tables"),
    ('name = "x"\n' + MODEL, "suites: missing"),
    ('name = "x"\n[[models]]\nmodel = "openai/m"\n' + SUITE, "line 2: models[0].label: missing"),
    ('name = "x"\n' + MODEL + MODEL + SUITE, "line 6: models[1].label: label 'a' is used twice"),
    (
        'name = "x"\n' + MODEL + 'temperature = "hot"\n' + SUITE,
        "line 5: models[0].temperature: must be a number",
    ),
    (
        'name = "x"\n' + MODEL + "timeout = 0\n" + SUITE,
        "line 5: models[0].timeout: --timeout must be positive",
    ),
    ('name = "x"\ntimeout = -1\n' + MODEL + SUITE, "line 2: timeout: --timeout must be positive"),
    ('name = "x"\n' + MODEL + "concurrency = 0\n" + SUITE, "line 5: models[0].concurrency:"),
    (
        'name = "x"\n' + MODEL + 'mode = "chat"\n' + SUITE,
        "line 5: models[0].mode: --mode must be native or prompt",
    ),
    (
        'name = "x"\n' + MODEL + 'prompt_format = "nope"\n' + SUITE,
        "line 5: models[0].prompt_format: unknown prompt format",
    ),
    (
        'name = "x"\n' + MODEL + "stream = 1\n" + SUITE,
        "line 5: models[0].stream: must be true or false",
    ),
    (
        'name = "x"\n' + MODEL + 'base_url = "ftp://x"\n' + SUITE,
        "line 5: models[0].base_url: base_url must be an http://",
    ),
    (
        'name = "x"\n' + MODEL + "base_url = []\n" + SUITE,
        "line 5: models[0].base_url: must be a URL or a non-empty",
    ),
    (
        'name = "x"\n' + MODEL + 'base_url = ["http://a:1", "http://a:1/"]\n' + SUITE,
        "line 5: models[0].base_url: listed twice",
    ),
    (
        'name = "x"\n[[models]]\nlabel = "a"\nmodel = "nope/m"\n' + SUITE,
        "line 4: models[0].model: unknown model provider 'nope'",
    ),
    (
        'name = "x"\n[[models]]\nlabel = "a"\nmodel = "replay/none.jsonl"\n' + SUITE,
        "line 4: models[0].model: no such replay file",
    ),
    (
        'name = "x"\n' + MODEL + "options = { when = 1979-05-27 }\n" + SUITE,
        "line 5: models[0].options: when: not a JSON value",
    ),
    (
        'name = "x"\n' + MODEL + "options = { top_p = nan }\n" + SUITE,
        "line 5: models[0].options: top_p: not a JSON value",
    ),
    (
        'name = "x"\n' + MODEL + "temperature = inf\n" + SUITE,
        "line 5: models[0].temperature: must be a number, got inf",
    ),
    (
        'name = "x"\n' + MODEL + '[[suites]]\nsuite = "no-such"\n',
        "line 6: suites[0].suite: no suite file or folder",
    ),
    (
        'name = "x"\n' + MODEL + SUITE + 'difficulties = ["impossible"]\n',
        "line 7: suites[0].difficulties: unknown difficulty",
    ),
    (
        'name = "x"\n' + MODEL + SUITE + "limit = 0\n",
        "line 7: suites[0].limit: --limit must be at least 1",
    ),
    (
        'name = "x"\n' + MODEL + SUITE + 'rubric = "exact"\n',
        "line 7: suites[0].rubric: must be one of binary",
    ),
    (
        'name = "x"\n' + MODEL + SUITE + 'profile = "nope"\n',
        "line 7: suites[0].profile: unknown profile 'nope'",
    ),
    (
        'name = "x"\n[[models]]\nlabel = "a"\nmodel = "python/m:f"\nbase_url = "http://h:1"\n'
        + SUITE,
        "line 5: models[0].base_url: python/ models have no server",
    ),
    (
        'name = "x"\nrubric = "exact"\n' + MODEL + SUITE,
        "line 2: rubric: must be one of binary",
    ),
    (
        'name = "x"\n' + MODEL + SUITE + "tags = [1]\n",
        "line 7: suites[0].tags: must be a string or an array",
    ),
    (
        'name = "x"\n' + MODEL + SUITE + 'label = "m"\n' + SUITE + 'label = "m"\n',
        "line 10: suites[1].label: label 'm' is used twice",
    ),
    (
        'name = "x"\n' + MODEL + "temperature = 0.1\ntemperature = 0.2\n" + SUITE,
        "line 6 column 18: invalid TOML: Cannot overwrite",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD, ids=[b[1][:40] for b in BAD])
def test_sweep_config_problem_names_file_key_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    message = _problem(tmp_path, text)
    assert expected in message, message


def test_sweep_config_reports_every_problem_at_once(tmp_path: Path) -> None:
    text = 'name = "x"\ncolour = 1\n' + MODEL + "temperature = true\n" + SUITE + "limit = 0\n"
    message = _problem(tmp_path, text)
    assert "3 problems:" in message
    assert "line 2: colour: unknown key" in message
    assert "line 6: models[0].temperature: must be a number, got True" in message
    assert "line 9: suites[0].limit: --limit must be at least 1" in message


def test_sweep_config_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read file"):
        load_sweep(tmp_path / "none.toml")
