#!/usr/bin/env python3
"""Turns `smartarrays bench adaptivity --json` results into a figure: per case, the time of the
adaptive choice, of the measured best static configuration and of the best single static
configuration of its workload family, relative to the best (1.0 = the optimum). PNG out.

usage: plot_adaptivity.py RESULT.json -o FIGURE.png
"""
import matplotlib.pyplot as plt

from plot_support import load_result

FORMAT = "smartarrays.bench.adaptivity/1"


def main():
    args, doc = load_result(__doc__.splitlines()[0], FORMAT)
    statistic = doc["config"].get("statistic", "median")
    labels, adaptive, static = [], [], []
    for case in doc["cases"]:
        if not case["feasible"]:
            continue
        best = case["best"]["seconds"]
        labels.append(f'{case["workload"]} {case["threads"]}t {case["scenario"][:12]}')
        adaptive.append(case["adaptive_s"] / best)
        static.append(case["best_static_s"] / best if case["best_static_s"] > 0 else float("nan"))
    fig, ax = plt.subplots(figsize=(max(8, len(labels) * 0.35), 4.5))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], adaptive, width=0.4, label="adaptive choice")
    ax.bar([x + 0.2 for x in xs], static, width=0.4, label="best static configuration", alpha=0.7)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.05, color="grey", linewidth=0.6, linestyle="--")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, rotation=75, fontsize=7)
    ax.set_ylabel(f"time / measured best ({statistic})")
    s = doc["summary"]
    ax.set_title(
        f'adaptive within 5%: {s["within_5_percent"]}/{s["cases"]}, mean loss {s["mean_loss"] * 100:.1f}%, '
        f'gain over best static {s["gain_over_best_static"] * 100:.1f}%'
        + (
            f'\npooled by width / huge pages (one memory node): within 5%: {s["pooled"]["within_5_percent"]}/{s["cases"]}, '
            f'mean loss {s["pooled"]["mean_loss"] * 100:.1f}%, gain {s["pooled"]["gain_over_best_static"] * 100:.1f}%'
            if "pooled" in s
            else ""
        ),
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
