#!/usr/bin/env python3
"""The closing table of `make bench-tune`: for each tuned workload, the default configuration's
median, the best configuration, its gain over the default, whether that gain is outside the
default's range of runs, and — when the grid was run twice — whether the recommendation reproduces:
the first run's best configuration measured again in the rerun has a gain within --tolerance
(default 5%) of the first, and is within it of the rerun's best. Next to each row: the study's
figure for that workload (shared/papers/numa-analytics-strategies.md §4.4, §4.5). Reads `smartarrays tune --json` files
(smartarrays.tune/1); writes a Markdown table on stdout and, with --json, the same as
smartarrays.tune.summary/1.

usage: summarize.py [--json OUT] [--tolerance 0.05] NAME=FIRST.json[,RERUN.json] ...
NAME starts with the workload (W1..W5) whose study figure it is shown next to.
"""
import argparse
import json
import sys

# What the study found for each workload (its §4.4 and §4.5, ptmalloc = glibc as the baseline).
STUDY = {
    "W1": "tbbmalloc: 62/83/72% shorter on machines A/B/C (2.6x/5.9x/3.6x)",
    "W2": "little gain (few allocations)",
    "W3": "tbbmalloc: 70/94/92% shorter (3.3x/17x/13x); up to 20x with interleave + OS settings",
    "W4": "jemalloc largest gain (ART index), more with interleave (no figure in the text)",
    "W5": "MonetDB: 14.5% mean from AutoNUMA+THP off, 20% on Q18 from tbbmalloc; PostgreSQL: 3% mean",
}


def load(path):
    """The configurations of one tune JSON, by label, and the label of the best one."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"summarize: cannot read {path}: {e}")
    if data.get("format") != "smartarrays.tune/1":
        sys.exit(f"summarize: {path} is not a smartarrays tune result (format {data.get('format')!r})")
    configs = {c["label"]: c for c in data["configurations"]}
    ran = [c for c in data["configurations"] if not c["failure"] and c["values"]]
    if not ran:
        sys.exit(f"summarize: {path}: no configuration ran without a failure")
    return configs, ran[0]["label"], data["value"]  # the file lists them ranked, best first


def row(name, paths, tolerance):
    """One workload's summary from its first run and optional rerun."""
    configs, best, value = load(paths[0])
    default = next(c for c in configs.values() if c["default"])
    out = {
        "name": name,
        "value": {"metric": "time it prints", "cpu_seconds": "CPU s", "seconds": "wall s"}.get(value, value),
        "default_median": default["median_s"],
        "best": best,
        "best_flags": configs[best]["run_flags"],
        "best_median": configs[best]["median_s"],
        "gain": configs[best]["gain_over_default"],
        "significant": bool(configs[best]["separated_from_default"]),
        "study": STUDY.get(name.split()[0].upper(), ""),
    }
    if len(paths) > 1:
        again, rerun_best, _ = load(paths[1])
        gain_again = again[best]["gain_over_default"] if best in again else 0.0
        out["rerun_best"] = rerun_best
        out["rerun_gain_of_best"] = gain_again
        out["rerun_best_gain"] = again[rerun_best]["gain_over_default"]
        # The recommendation holds when its gain is the same again and it is (nearly) the best again:
        # a first best that is the default reproduces only if no knob wins in the rerun either.
        out["reproduces"] = (out["gain"] > 0 and abs(gain_again - out["gain"]) <= tolerance * out["gain"]
                             and out["rerun_best_gain"] <= (1 + tolerance) * gain_again)
    return out


def markdown(rows, tolerance):
    lines = [
        "| workload | value | default median | best configuration | its median | gain | outside default's range | "
        f"rerun: its best and gain / the first best's gain | reproduces within {tolerance:.0%} | study |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rerun = "—"
        if "rerun_best" in r:
            rerun = f"{r['rerun_best']} {r['rerun_best_gain']:.2f}x / {r['rerun_gain_of_best']:.2f}x"
        reproduces = {True: "yes", False: "no"}.get(r.get("reproduces"), "—")
        lines.append(
            f"| {r['name']} | {r['value']} | {r['default_median']:.3f} | {r['best']} | {r['best_median']:.3f} | {r['gain']:.2f}x | "
            f"{'yes' if r['significant'] else 'no'} | {rerun} | {reproduces} | {r['study']} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the summary here")
    parser.add_argument("--tolerance", type=float, default=0.05, help="relative gain difference that reproduces")
    parser.add_argument("results", nargs="+", metavar="NAME=FIRST.json[,RERUN.json]")
    args = parser.parse_args()
    rows = []
    for item in args.results:
        name, sep, files = item.partition("=")
        if not sep or not files:
            parser.error(f"expected NAME=FIRST.json[,RERUN.json], got {item!r}")
        rows.append(row(name, files.split(","), args.tolerance))
    print(markdown(rows, args.tolerance))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"format": "smartarrays.tune.summary/1", "tolerance": args.tolerance, "rows": rows}, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
