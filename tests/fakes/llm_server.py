"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

It answers `/v1/chat/completions` by task (the `X-Arbor-Task` header Arbor sends), with
plausible default answers for every task, per-task scripts (replies, faults, delays) and
realistic `usage` token counts. Real HTTP, so the tests exercise ChatOpenAI for real.

Run standalone: `python -m tests.fakes.llm_server --port 8765 [--latency 0.2]`.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Fault:
    """A scripted failure: an HTTP error status, a delay before answering, or both."""

    status: int = 500
    delay_s: float = 0.0
    retry_after: float | None = None
    body: str = '{"error": {"message": "scripted failure", "type": "server_error"}}'


Reply = str | Fault | Callable[[dict], "str | Fault"]


def _tag(text: str, name: str) -> str:
    m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", text, re.S)
    return m.group(1).strip() if m else ""


def _user_text(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")


def numbered_passages(listing: str) -> list[tuple[int, str]]:
    """(n, passage) of an extraction prompt's sources ("Source n: title\\nurl\\n(k) sentence ...")."""
    out = []
    for block in re.split(r"\n\s*\n(?=Source \d+:)", listing):
        m = re.match(r"Source (\d+):[^\n]*\n[^\n]*\n(.*)", block.strip(), re.S)
        if m:
            body = re.sub(r"(?m)^\(\d+\) ", "", m.group(2))
            out.append((int(m.group(1)), " ".join(body.split())))
    return out


def numbered_sentences(listing: str) -> list[tuple[int, int, str]]:
    """(source n, sentence number, sentence) of an extraction prompt's sources."""
    out = []
    for n, block in (
        (int(m.group(1)), m.group(2))
        for m in re.finditer(r"Source (\d+):[^\n]*\n[^\n]*\n((?:\(\d+\)[^\n]*\n?)+)", listing)
    ):
        for k, sentence in re.findall(r"^\((\d+)\) (.*)$", block, re.M):
            out.append((n, int(k), sentence))
    return out


def _first_sentence(passage: str) -> str:
    sentence = re.split(r"(?<=[.!?])\s+", passage.strip())[0] if passage.strip() else ""
    return sentence[:240]


def default_reply(task: str, body: dict) -> str:
    """A plausible, valid answer for each of Arbor's tasks, derived from the prompt."""
    text = _user_text(body)
    if task == "classify":
        q = _tag(text, "question").lower()
        complex_ = any(w in q for w in ("compare", " vs", "causes", "evaluate", " and ", "比較"))
        return json.dumps({"complexity": "complex" if complex_ else "simple", "reasoning": "scripted"})
    if task == "decompose":
        q = _tag(text, "question")
        subs = [
            {"question": f"What are the core facts about {q}?", "priority": 1.0, "rationale": "Foundation."},
            {"question": f"What evidence compares the options in {q}?", "priority": 0.8, "rationale": "Core."},
            {"question": f"What do practitioners recommend for {q}?", "priority": 0.6, "rationale": "Use."},
        ]
        return json.dumps({"strategy": "multi-faceted", "reasoning": "scripted split", "sub_questions": subs})
    if task == "plan_queries":
        sq = _tag(text, "sub_question")
        return json.dumps({"queries": [sq[:80]], "reasoning": "search the sub-question directly"})
    if task == "extract_findings":
        # a careful model: one finding per source, pointing at the source's first sentence
        firsts: dict[int, int] = {}
        for n, k, _ in numbered_sentences(_tag(text, "sources")):
            firsts.setdefault(n, k)
        findings = [{"sentences": [k], "confidence": 0.8} for k in list(firsts.values())[:2]]
        return json.dumps({"findings": findings, "reasoning": "kept the top sources"})
    if task == "synthesize_branch":
        # restates its findings with their citations
        lines = re.findall(r"^- \(confidence [\d.]+\) (.+)$", _tag(text, "findings"), re.M)
        point = lines[0].rstrip(".") if lines else "nothing was found"
        rest = " ".join(line if line.endswith(".") else line + "." for line in lines[1:2])
        return f"The sources agree on the main point: {point}. {rest}".rstrip() + "\n\nCaveats: scripted answer."
    if task == "meta_synthesis":
        # frames the sub-answers, then restates their first cited sentences (which the engine drops:
        # the report prints each branch answer beside the overview)
        claims = re.findall(r"([^.\n]*?\w[^.\n]*?(?:\[\d+\])+)", _tag(text, "sub_answers"))
        body = " ".join(c.strip() + "." for c in claims[:3])
        return (
            f"The research answers the question by comparing the sub-answers below.\n\n## Findings\n{body}\n\n"
            "## Conclusion\nA scripted conclusion.\n\n## Limitations\nScripted data."
        )
    if task == "propose_hypotheses":
        q = _tag(text, "question")[:60]
        hyps = [
            {
                "statement": f"The main driver behind {q} is cost.",
                "search_strategy": "cost data",
                "confidence": 7,
                "expected_evidence": "price comparisons",
                "validation_criteria": "costs differ clearly",
            },
            {
                "statement": f"Ecosystem maturity decides {q}.",
                "search_strategy": "library counts",
                "confidence": 5,
                "expected_evidence": "package statistics",
                "validation_criteria": "ecosystems differ in size",
            },
        ]
        return json.dumps({"hypotheses": hyps, "reasoning": "scripted"})
    if task == "judge_hypothesis":
        numbers = re.findall(r"^\[(\d+)\]", _tag(text, "sources"), re.M)
        lines = re.findall(r"^- \(confidence [\d.]+\) (.+)$", _tag(text, "findings"), re.M)
        evidence = f"The findings support it [{numbers[0] if numbers else 1}]."
        if lines:
            evidence += " " + (lines[0] if lines[0].endswith(".") else lines[0] + ".")
        return json.dumps(
            {
                "verdict": "validated",
                "evidence": evidence,
                "confidence": 7,
                "pivot": None,
                "reasoning": "scripted",
            }
        )
    if task == "compare_answers":
        a, b = len(_tag(text, "report_a")), len(_tag(text, "report_b"))
        longer = "A" if a > b else "B" if b > a else "tie"
        return json.dumps(
            {"more_complete": longer, "better_organised": longer, "better_supported": "tie", "reasoning": "scripted"}
        )
    if task == "evaluate_depth":
        return json.dumps({"depth": "adequate", "reasoning": "scripted: the findings answer it", "drill_into": []})
    if task == "revise_plan":
        return json.dumps({"add": [], "drop": [], "reprioritize": {}, "reasoning": "scripted: no change needed"})
    if task == "assess_coverage":
        return json.dumps({"gaps": [], "sufficient": True, "reasoning": "scripted"})
    if task == "verify_citations":
        claims = re.findall(r"^(\d+)\.", _tag(text, "claims"), re.M)
        return json.dumps({"checks": [{"claim": int(n), "supported": True} for n in claims], "reasoning": "scripted"})
    return json.dumps({"answer": "ok"})


@dataclass
class ScriptedLLM:
    """What the server answers. `script[task]` is a list of replies consumed in order (None: the
    default reply), or one reply (or callable) used for every call of that task."""

    script: dict[str, list[Reply] | Reply] = field(default_factory=dict)
    latency_s: float = 0.0
    latency_by_task: dict[str, float] = field(default_factory=dict)
    calls: list[tuple[str, dict]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)  # each call's Authorization header
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, task: str, body: dict) -> str | Fault:
        """Record the call and return its reply."""
        with self._lock:
            self.calls.append((task, body))
            entry = self.script.get(task)
            if isinstance(entry, list):
                reply: Reply | None = entry.pop(0) if entry else None
            else:
                reply = entry  # one reply (or callable) for every call of the task
        if reply is None:
            return default_reply(task, body)
        if callable(reply) and not isinstance(reply, Fault):
            return reply(body)
        return reply

    def recorded_calls(self) -> list[tuple[str, dict]]:
        """A copy of the calls made so far, (task, request body) each."""
        with self._lock:
            return list(self.calls)

    def count(self, task: str) -> int:
        """How many calls of `task` were made."""
        with self._lock:
            return sum(1 for t, _ in self.calls if t == task)


class ScriptedServer(ThreadingHTTPServer):
    """The HTTP server; `scripted` decides its answers."""

    daemon_threads = True
    request_queue_size = 256  # parallel branches send bursts; the default of 5 drops them
    allow_reuse_address = True
    scripted: ScriptedLLM


class ScriptedHandler(BaseHTTPRequestHandler):
    """Answers the OpenAI chat-completions and models endpoints from the server's `scripted`."""

    server: ScriptedServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: str, headers: dict[str, str] | None = None) -> None:
        data = payload.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, json.dumps({"object": "list", "data": [{"id": "scripted", "object": "model"}]}))
        else:
            self._send(404, '{"error": "not found"}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        task = self.headers.get("X-Arbor-Task", "unknown")
        scripted = self.server.scripted
        scripted.authorizations.append(self.headers.get("Authorization"))
        delay = scripted.latency_by_task.get(task, scripted.latency_s)
        reply = scripted.next_reply(task, body)
        if isinstance(reply, Fault):
            time.sleep(reply.delay_s)
            if reply.status == 200:
                reply = default_reply(task, body)
            else:
                headers = {"Retry-After": str(reply.retry_after)} if reply.retry_after is not None else {}
                self._send(reply.status, reply.body, headers)
                return
        if delay:
            time.sleep(delay)
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
        completion_tokens = max(1, len(reply) // 4)
        payload = {
            "id": f"chatcmpl-{len(scripted.calls)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        with suppress(BrokenPipeError, ConnectionResetError):
            self._send(200, json.dumps(payload))


@contextmanager
def serve(scripted: ScriptedLLM | None = None, port: int = 0) -> Iterator[tuple[str, ScriptedLLM]]:
    """Run the server on a background thread; yields (base_url, scripted)."""
    scripted = scripted or ScriptedLLM()
    server = ScriptedServer(("127.0.0.1", port), ScriptedHandler)
    server.scripted = scripted
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", scripted
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    """Serve until killed; prints the base URL on the first line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    args = parser.parse_args()
    server = ScriptedServer(("127.0.0.1", args.port), ScriptedHandler)
    server.scripted = ScriptedLLM(latency_s=args.latency)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
