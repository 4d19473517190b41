"""Hostile sweep files: one line naming the file (exit 2), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.errors import ConfigError
from toolgrade.sweep import load_sweep

MODEL = '[[models]]\nlabel = "a"\nmodel = "openai/m"\n'
SUITE = '[[suites]]\nsuite = "coding-agent"\n'

HOSTILE = [
    # (file text, the message after "<file>:")
    ('name = "x"\nv = ' + "[" * 5000 + "]" * 5000 + "\n", " invalid TOML: arrays or tables"),
    (
        'name = "x"\nv = ' + "{a=" * 3000 + "1" + "}" * 3000 + "\n",
        " invalid TOML: arrays or tables",
    ),
    (
        'name = "x"\n' + "[" + ".".join(["t"] * 3000) + "]\n",
        " 3 problems:\n  - t: unknown key",  # a dotted header is read without recursion
    ),
    ('name = "x"\nseed = ' + "9" * 5000 + "\n" + MODEL + SUITE, "line 2: invalid TOML: an integer"),
    (
        'name = "x"\n' + MODEL + "max_tokens = 1_" + "0" * 4400 + "\n" + SUITE,
        "line 5: invalid TOML: an integer of more than 4,300 digits",
    ),
    ('name = "x"\nseed = -1\n' + MODEL + SUITE, "line 2: seed: must be 0 to 4,294,967,295, got -1"),
    ('name = "x"\nseed = 4294967296\n' + MODEL + SUITE, "line 2: seed: must be 0 to 4,294,967,295"),
    (
        'name = "x"\n' + MODEL + "repeat = 1000000000\n" + SUITE,
        "line 5: models[0].repeat: must be 1 to 1,000, got 1000000000",
    ),
]


@pytest.mark.parametrize(("text", "expected"), HOSTILE, ids=range(len(HOSTILE)))
def test_sweep_hostile_file_is_one_config_error(
    tmp_path: Path, text: str, expected: str | None
) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_sweep(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:"), message
    if expected is not None:
        assert message == f"{path}:{expected}" or message.startswith(f"{path}:{expected}"), message


def test_cli_sweep_deep_and_long_files_exit_2_in_one_line(tmp_path: Path) -> None:
    from toolgrade.cli import app

    for name, text in (
        ("deep.toml", 'name = "x"\nv = ' + "[" * 5000 + "]" * 5000 + "\n"),
        ("digits.toml", 'name = "x"\nseed = ' + "9" * 5000 + "\n"),
    ):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(app, ["sweep", str(path)])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"error: {path}:"), result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
