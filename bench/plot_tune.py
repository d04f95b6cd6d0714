#!/usr/bin/env python3
"""Draws `smartarrays tune --json` results (format smartarrays.tune/1): one horizontal bar per
configuration, its median with the range of its runs, fastest (or highest with --maximize) at the
top, the default configuration in grey. PNG out. `smartarrays tune --plot FILE` runs it.

usage: plot_tune.py RESULT.json -o FIGURE.png
"""
import sys

import matplotlib.pyplot as plt

from plot_support import load_result

FORMAT = "smartarrays.tune/1"


def main():
    args, doc = load_result(__doc__.splitlines()[0], FORMAT)
    rows = [c for c in doc["configurations"] if c["values"]]
    if not rows:
        sys.exit(f"{args.result}: no configuration has a successful run")
    rows.reverse()  # best at the top
    labels = [c["label"] for c in rows]
    medians = [c["median_s"] for c in rows]
    low = [c["median_s"] - c["min_s"] for c in rows]
    high = [c["max_s"] - c["median_s"] for c in rows]
    colors = ["0.6" if c["default"] else "tab:blue" for c in rows]
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(rows) + 1.5))
    ax.barh(range(len(rows)), medians, xerr=[low, high], color=colors, capsize=2)
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    unit = "seconds (wall)" if doc["value"] == "seconds" else f"metric {doc['metric']!r}"
    ax.set_xlabel(f"median {unit}, bars: min-max of {doc['repetitions']} runs")
    ax.set_title(" ".join(doc["command"])[:100], fontsize=9)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(args.output)


if __name__ == "__main__":
    main()
