#!/usr/bin/env python3
"""Turns `smartarrays bench aggregate --json` results into the paper-style figure (Figure 10 of the
smart-arrays paper): median time per placement and bit width, one panel per thread count, one
series per language (C++ now; a Java run writing the same format adds its own bars). PNG out.

usage: plot_aggregate.py RESULT.json [MORE.json ...] -o FIGURE.png
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display on build machines
import matplotlib.pyplot as plt  # noqa: E402

FORMAT = "smartarrays.bench.aggregate/1"
LANGUAGE_HATCH = {"C++": "", "Java": "//", "Python": ".."}


def load(paths):
    """Every result row of the given files, each tagged with its language."""
    rows, machines = [], []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("format") != FORMAT:
            sys.exit(f"{path}: not a {FORMAT} file (format is {doc.get('format')!r})")
        machines.append(doc.get("machine", {}))
        for row in doc["results"]:
            row.setdefault("language", doc.get("language", "C++"))
            rows.append(row)
    if not rows:
        sys.exit("no results in " + ", ".join(paths))
    return rows, machines


def ordered(values):
    """Unique values in first-seen order."""
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def plot(rows, machines, output):
    threads = sorted(ordered(r["threads"] for r in rows))
    placements = ordered(r["placement"] for r in rows)
    bits = sorted(ordered(r["bits"] for r in rows))
    languages = ordered(r["language"] for r in rows)
    colors = plt.get_cmap("viridis")
    by_key = {(r["language"], r["threads"], r["placement"], r["bits"]): r for r in rows}

    fig, axes = plt.subplots(len(threads), 1, figsize=(max(8, 2.4 * len(placements)), 3.6 * len(threads)),
                             squeeze=False)
    bars_per_group = len(bits) * len(languages)
    width = 0.8 / bars_per_group
    for panel, t in zip(axes[:, 0], threads):
        for li, language in enumerate(languages):
            for bi, b in enumerate(bits):
                xs, ys, lo, hi = [], [], [], []
                for pi, placement in enumerate(placements):
                    r = by_key.get((language, t, placement, b))
                    if r is None:
                        continue
                    slot = bi * len(languages) + li
                    xs.append(pi - 0.4 + width * (slot + 0.5))
                    ys.append(r["median_s"] * 1e3)
                    lo.append((r["median_s"] - r["min_s"]) * 1e3)
                    hi.append((r["max_s"] - r["median_s"]) * 1e3)
                if not xs:
                    continue
                label = f"{b}-bit" + (f" {language}" if len(languages) > 1 else "")
                panel.bar(xs, ys, width, yerr=[lo, hi], capsize=1.5, label=label,
                          color=colors(bi / max(1, len(bits) - 1)), edgecolor="black", linewidth=0.4,
                          hatch=LANGUAGE_HATCH.get(language, "xx"))
        panel.set_xticks(range(len(placements)))
        panel.set_xticklabels([p.replace("_", " ") for p in placements])
        panel.set_ylabel("time (ms)")
        panel.set_title(f"{t} thread{'s' if t != 1 else ''}", fontsize=10)
        panel.grid(axis="y", alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=min(len(labels), 8), fontsize=8, loc="upper center",
               bbox_to_anchor=(0.5, 0.965), frameon=False)
    machine = machines[0] if machines else {}
    fig.suptitle("aggregation sum += a1[i] + a2[i] by placement and bit width"
                 f" ({', '.join(languages)}; {machine.get('cpu_model', '?')}, "
                 f"{machine.get('nodes', '?')} node(s), THP {machine.get('thp_enabled', '?')})",
                 fontsize=10, y=0.995)
    # Room at the top for the title and the shared legend.
    fig.tight_layout(rect=(0, 0, 1, 0.93 if len(threads) > 1 else 0.88))
    fig.savefig(output, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="JSON files from smartarrays bench aggregate --json")
    parser.add_argument("-o", "--output", required=True, help="PNG file to write")
    args = parser.parse_args()
    rows, machines = load(args.results)
    plot(rows, machines, args.output)
    print(args.output)


if __name__ == "__main__":
    main()
