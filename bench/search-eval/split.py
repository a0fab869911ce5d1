#!/usr/bin/env python3
"""Assign each question of the search-evaluation files to the `dev` or the
`test` half.

For each API file separately, the questions (in file order) are shuffled with
a fresh random.Random(29); the first half of the shuffled list, rounded down,
is marked "dev" and the rest "test". The questions keep their order in the
file; only their "half" field is written. Running the script again gives the
same assignment as long as the questions and their order are unchanged.

Usage:
    python3 bench/search-eval/split.py [FILE.json ...]
"""
import glob
import json
import os
import random
import sys

SEED = 29
HERE = os.path.dirname(os.path.abspath(__file__))


def split_file(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    questions = data["questions"]
    order = list(range(len(questions)))
    random.Random(SEED).shuffle(order)
    n_dev = len(order) // 2
    dev = set(order[:n_dev])
    for i, q in enumerate(questions):
        q["half"] = "dev" if i in dev else "test"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print("%-11s %3d questions: dev %d, test %d"
          % (data["api"], len(questions), n_dev, len(questions) - n_dev))


def main():
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "*.json")))
    for path in files:
        split_file(path)


if __name__ == "__main__":
    main()
