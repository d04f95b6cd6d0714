"""What the plotting scripts of bench/ share: matplotlib without a display, and reading one result
file of a known format named on the command line with the figure's path (-o)."""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display on build machines


def load_result(description, result_format):
    """Parses `RESULT.json -o FIGURE.png`; returns (args, document), exiting when the format differs."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("result")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.result, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != result_format:
        sys.exit(f"{args.result}: not a {result_format} file (format is {doc.get('format')!r})")
    return args, doc
