#!/usr/bin/env python3
"""Copies measured tables into README.md between <!-- NAME:begin --> and
<!-- NAME:end --> markers, so that no number in the README is typed by hand.
Sources: results/paper/{table,claims}.md, results/mixing/table.md,
results/tuning/table.md, results/bench/bench.json, results/equal-cpu/*/table.md,
results/flip-cost/{whole-trial,breakdown-beta1}.md, results/replica/table.md. Usage: scripts/readme-tables.py"""
import json, math, os, re, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)


def read(path):
    """A results file, its headings demoted to fit under the README's sections."""
    if not os.path.exists(path):
        return None
    lines = open(path).read().strip().split("\n")
    return "\n".join("###" + l[1:] if l.startswith("# ") else l for l in lines)


def num(v, fmt):
    """v formatted, or n/a where it could not be measured (null in the JSON)."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    return format(v, fmt)


def bench_table():
    path = "results/bench/bench.json"
    if not os.path.exists(path):
        return None
    r = json.load(open(path))
    rows = [f"Machine: {r['machine']}, {r['go']}, measured {r['date']} with `sardonics bench --ess --budget 2s --out results/bench`.", "",
            "| kernel | model | beta | value | unit | note |", "|---|---|---:|---:|---|---|"]
    for l in r["lines"]:
        rows.append(f"| {l['name']} | {l['model']} | {num(l.get('beta'), '.4g')} | {num(l.get('value'), '.4g')} | {l['unit']} | {l.get('note', '')} |")
    return "\n".join(rows)


def equal_cpu():
    """Every equal-CPU comparison, coldest last."""
    base = "results/equal-cpu"
    if not os.path.isdir(base):
        return None
    parts = [read(os.path.join(base, d, "table.md")) for d in sorted(os.listdir(base), reverse=True)
             if os.path.exists(os.path.join(base, d, "table.md"))]
    return "\n\n".join(p for p in parts if p) or None


blocks = {
    "paper-table": read("results/paper/table.md"),
    "paper-claims": read("results/paper/claims.md"),
    "mixing": read("results/mixing/table.md"),
    "tuning": read("results/tuning/table.md"),
    "bench": bench_table(),
    "equal-cpu": equal_cpu(),
    "flip-cost": read("results/flip-cost/whole-trial.md"),
    "flip-breakdown": read("results/flip-cost/breakdown-beta1.md"),
    "replica": read("results/replica/table.md"),
}
text = open("README.md").read()
for name, body in blocks.items():
    if body is None:
        print(f"readme-tables: no source for {name}", file=sys.stderr)
        continue
    pat = re.compile(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pat.search(text):
        print(f"readme-tables: README has no {name} markers", file=sys.stderr)
        continue
    text = pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)
open("README.md", "w").write(text)
