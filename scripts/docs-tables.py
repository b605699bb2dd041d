#!/usr/bin/env python3
"""Copies measured tables into the docs pages, so that no number in them is
typed by hand. A generated block is the text between

    <!-- begin: SOURCE [SOURCE...] -->
    <!-- end: SOURCE [SOURCE...] -->

(the same SOURCEs on both lines, paths from the repository root): each
SOURCE rendered, joined by a blank line. A .md source is copied with its
"# " headings demoted to "### " to fit under the pages' sections;
results/bench/bench.json (what `sardonics bench --ess --out results/bench`
writes) becomes the bench table. The measurement scripts (mixing.sh,
equal-cpu.sh, replica.sh, tuning.sh, flip-cost.sh, flip-breakdown.sh,
`sardonics paper`, `sardonics bench`) write the sources under results/.

Usage: scripts/docs-tables.py          rewrite the blocks of README.md and docs/*.md
       scripts/docs-tables.py --check  write nothing; list stale blocks, exit 1 if any

internal/docpage renders the same blocks in Go, and `go test ./internal/docpage`
fails when a block differs from its sources or from this script's --check."""
import glob, json, math, os, re, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)


def read(path):
    """A results file, its headings demoted to fit under the pages' sections."""
    lines = open(path).read().strip().split("\n")
    return "\n".join("###" + l[1:] if l.startswith("# ") else l for l in lines)


def num(v, fmt):
    """v formatted, or n/a where it could not be measured (null in the JSON)."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    return format(v, fmt)


def bench_table(path):
    r = json.load(open(path))
    rows = [f"Machine: {r['machine']}, {r['go']}, measured {r['date']} with `sardonics bench --ess --budget 2s --out results/bench`.", "",
            "| kernel | model | beta | value | unit | note |", "|---|---|---:|---:|---|---|"]
    for l in r["lines"]:
        rows.append(f"| {l['name']} | {l['model']} | {num(l.get('beta'), '.4g')} | {num(l.get('value'), '.4g')} | {l['unit']} | {l.get('note', '')} |")
    return "\n".join(rows)


def render(sources):
    parts = []
    for path in sources.split():
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        parts.append(bench_table(path) if path.endswith(".json") else read(path))
    return "\n\n".join(parts)


check = sys.argv[1:] == ["--check"]
if sys.argv[1:] not in ([], ["--check"]):
    sys.exit(__doc__)
marker = re.compile(r"^(<!-- begin: (.+?) -->\n)(.*?)^(<!-- end: \2 -->)$", re.S | re.M)
stale = 0
for page in ["README.md"] + sorted(glob.glob("docs/*.md")):
    text = open(page).read()

    def sub(m):
        global stale
        try:
            body = render(m.group(2))
        except FileNotFoundError as e:
            print(f"docs-tables: {page}: no source {e}", file=sys.stderr)
            stale += 1
            return m.group(0)
        new = m.group(1) + body + "\n" + m.group(4)
        if new != m.group(0):
            line = text.count("\n", 0, m.start()) + 1
            print(f"docs-tables: {page}:{line}: {'stale' if check else 'rewrote'} block from {m.group(2)}", file=sys.stderr)
            stale += check
        return new

    new = marker.sub(sub, text)
    if not check and new != text:
        open(page, "w").write(new)
sys.exit(1 if stale else 0)
