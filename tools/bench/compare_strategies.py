#!/usr/bin/env python3
"""Compares two `sgemm-tune tune --json` outputs of one shape list (default strategy vs exhaustive):
per problem the tuning time and the project's best kernel in each, and whether the default's best
is within 2% of the exhaustive best. Usage: compare_strategies.py DEFAULT.json EXHAUSTIVE.json"""
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        return {r["problem"]: r for r in json.load(f)}


def main():
    default, exhaustive = load(sys.argv[1]), load(sys.argv[2])
    rows, within = [], 0
    print(f"{'problem':52} {'default s':>9} {'exh. s':>8} {'default us':>11} {'exh. us':>9} {'ratio':>7}")
    for problem, d in default.items():
        e = exhaustive.get(problem)
        # Only problems the exhaustive search finished (a time budget may cut the last one).
        if not e or e.get("budget_note") or not d["best_own_us"] or not e["best_own_us"]:
            continue
        ratio = d["best_own_us"] / e["best_own_us"]
        within += ratio <= 1.02
        rows.append(ratio)
        print(f"{problem:52} {d['seconds']:9.1f} {e['seconds']:8.1f} {d['best_own_us']:11.2f} "
              f"{e['best_own_us']:9.2f} {ratio:7.3f}")
    seconds = [d["seconds"] for d in default.values() if not d.get("already_tuned")]
    print(f"\ndefault strategy: median {statistics.median(seconds):.1f} s per problem over {len(seconds)}")
    print(f"default best within 2% of exhaustive best: {within} of {len(rows)} compared problems")


if __name__ == "__main__":
    main()
