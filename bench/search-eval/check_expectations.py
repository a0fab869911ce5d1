#!/usr/bin/env python3
"""Check that every `expect` entry in the search-evaluation files names an
operation that exists in the API description it refers to.

REST entries are "METHOD /path", with the path spelled exactly as in the
description's `paths` object. GraphQL entries are "query <field>" or
"mutation <field>", naming a field of the schema's root query or mutation type.

Usage:
    python3 bench/search-eval/check_expectations.py [--npm-root DIR] [FILE.json ...]

Sources written as "../shared/specs/..." are resolved against the repository
root. Sources written as "npm:<package>@<version>/<path>" are read from
DIR/<path> when --npm-root DIR is given (DIR is where the package tarball was
unpacked, so that DIR/package/... exists); otherwise the package is fetched
with `npm pack` into a temporary directory.

Only the Python standard library is needed, plus PyYAML for YAML descriptions.
Exit status is 0 when every entry resolves, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def load_structured(path):
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    try:
        import yaml
    except ImportError:
        sys.exit(
            "error: the PyYAML module is required to read %s but is not installed.\n"
            "Install it (for example with `python3 -m pip install pyyaml`, "
            "inside a virtual environment if needed) and run this script with "
            "that interpreter." % os.path.relpath(path, REPO_ROOT)
        )
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def rest_operations(doc):
    ops = set()
    for path, item in (doc.get("paths") or {}).items():
        if not isinstance(item, dict):
            continue
        for method in item:
            if method.lower() in METHODS:
                ops.add("%s %s" % (method.upper(), path))
    return ops


def _strip_graphql(text):
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"#[^\n]*", "", text)
    return text


def graphql_operations(text):
    s = _strip_graphql(text)
    roots = {"query": "Query", "mutation": "Mutation", "subscription": "Subscription"}
    m = re.search(r"\bschema\s*\{([^}]*)\}", s)
    if m:
        for kind, name in re.findall(r"(query|mutation|subscription)\s*:\s*([A-Za-z_]\w*)", m.group(1)):
            roots[kind] = name
    ops = set()
    for kind, type_name in roots.items():
        pattern = r"\b(?:extend\s+)?type\s+" + re.escape(type_name) + r"\b[^{]*\{"
        for tm in re.finditer(pattern, s):
            j, depth, body = tm.end(), 0, []
            while j < len(s):
                c = s[j]
                j += 1
                if c == "(":
                    depth += 1
                    continue
                if c == ")":
                    depth -= 1
                    continue
                if c == "}" and depth == 0:
                    break
                if depth == 0:
                    body.append(c)
            for field in re.findall(r"([A-Za-z_]\w*)\s*:", "".join(body)):
                ops.add("%s %s" % (kind, field))
    return ops


class NpmCache:
    def __init__(self, root):
        self.root = root
        self.tmp = None

    def path_for(self, source):
        spec, _, inner = source[len("npm:"):].partition("/package/")
        inner = "package/" + inner
        if self.root:
            return os.path.join(self.root, inner)
        if self.tmp is None:
            if shutil.which("npm") is None:
                sys.exit("error: %s needs npm (or pass --npm-root DIR)" % source)
            self.tmp = tempfile.mkdtemp(prefix="search-eval-")
        target = os.path.join(self.tmp, spec.replace("/", "+"))
        if not os.path.isdir(target):
            os.makedirs(target)
            out = subprocess.run(["npm", "pack", "--silent", spec], cwd=target,
                                 capture_output=True, text=True, check=True)
            tgz = os.path.join(target, out.stdout.strip().splitlines()[-1])
            with tarfile.open(tgz) as tf:
                tf.extract(inner, target)
        return os.path.join(target, inner)

    def cleanup(self):
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--npm-root", help="directory where npm packages were unpacked")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(HERE, "*.json")))
    npm = NpmCache(args.npm_root)
    failures = 0
    total = 0
    try:
        for fname in files:
            with open(fname, encoding="utf-8") as f:
                data = json.load(f)
            source = data["source"]
            if source.startswith("npm:"):
                path = npm.path_for(source)
            else:
                path = os.path.normpath(os.path.join(REPO_ROOT, source))
            if not os.path.exists(path):
                print("%s: description not found: %s" % (fname, source))
                failures += 1
                continue
            if data["style"].startswith("GraphQL"):
                with open(path, encoding="utf-8") as f:
                    ops = graphql_operations(f.read())
            else:
                ops = rest_operations(load_structured(path))
            seen_ids, seen_q = set(), set()
            n_bad = 0
            for q in data["questions"]:
                total += 1
                problems = []
                if q["id"] in seen_ids:
                    problems.append("duplicate id")
                seen_ids.add(q["id"])
                if not q.get("q", "").strip():
                    problems.append("empty question")
                if q["q"].strip().lower() in seen_q:
                    problems.append("duplicate question")
                seen_q.add(q["q"].strip().lower())
                if not q.get("expect"):
                    problems.append("no expected operation")
                if len(set(q["expect"])) != len(q["expect"]):
                    problems.append("repeated expect entry")
                if q.get("half") not in ("dev", "test"):
                    problems.append("half is %r, not dev or test" % (q.get("half"),))
                for e in q["expect"]:
                    if e not in ops:
                        problems.append("not in description: %s" % e)
                if problems:
                    n_bad += 1
                    failures += 1
                    print("%s %s: %s" % (data["api"], q["id"], "; ".join(problems)))
            halves = {h: sum(1 for q in data["questions"] if q.get("half") == h) for h in ("dev", "test")}
            print("%-11s %3d questions (dev %d, test %d), %d operations in description, %d with problems"
                  % (data["api"], len(data["questions"]), halves["dev"], halves["test"], len(ops), n_bad))
    finally:
        npm.cleanup()
    print("checked %d questions: %s" % (total, "all expectations resolve" if failures == 0 else "%d problems" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
