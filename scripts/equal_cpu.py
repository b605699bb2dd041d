#!/usr/bin/env python3
"""Helper of scripts/equal-cpu.sh (standard library only).

  equal_cpu.py get DIR FIELD            a field of DIR/summary.json's only result
  equal_cpu.py per-step DIR STEPS       CPU seconds per step of a run of STEPS steps
  equal_cpu.py steps CPU PER DIV TRIALS steps per trial so that TRIALS trials take CPU/DIV seconds
  equal_cpu.py table OUT REF MODEL T SEED SAMPLER...
                                        the equal-CPU table of OUT/SAMPLER runs (REF: the
                                        path of ess_reference.py, or "" for none)
"""
import glob, json, os, subprocess, sys


def result(d):
    with open(os.path.join(d, "summary.json")) as f:
        rs = json.load(f)["results"]
    if len(rs) != 1:
        sys.exit(f"equal_cpu.py: {d}/summary.json has {len(rs)} results, want 1")
    return rs[0]


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def reference(ref, d, burn):
    """ess_reference.py's bulk ESS and bulk R-hat of the run's energy.csv files."""
    files = sorted(glob.glob(os.path.join(d, "*", "trial-*", "energy.csv")))
    if not ref or not files:
        return None, None
    try:
        out = subprocess.run(["/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                              ref, "--burn", str(burn)] + files, capture_output=True, text=True, check=True).stdout.split()
        return float(out[0]), float(out[1])
    except (subprocess.CalledProcessError, IndexError, ValueError, OSError) as e:
        print(f"equal_cpu.py: {ref} failed on {d}: {e}", file=sys.stderr)
        return None, None


def table(out, ref, model, temp, seed, samplers):
    rows, data = [], {}
    for s in samplers:
        d = os.path.join(out, s)
        r = result(d)
        rs, rr = reference(ref, d, r["burn_in"])
        data[s] = dict(steps=r["steps"], burn_in=r["burn_in"], trials=r["trials"], cpu_seconds=r["cpu_seconds"],
                       ess=r["ess"], ess_note=r.get("ess_note"), ess_tail=r.get("ess_tail"),
                       ess_per_cpu_second=r["ess_per_cpu_second"], rhat=r["rhat"], rhat_note=r.get("rhat_note"),
                       tau_int=r["tau_int"], energy_mean=r["energy_mean"], energy_stderr=r["energy_stderr"],
                       reference_ess=rs, reference_bulk_rhat=rr)
    base = data[samplers[0]]["cpu_seconds"]
    hdr = ("| sampler | trials x steps (burn-in) | CPU s | CPU / sardonics | bulk ESS | ESS / CPU-s | tail ESS | R-hat "
           "| mean E +- stderr |" + (" reference bulk ESS, bulk R-hat |" if ref else ""))
    rows.append(hdr)
    rows.append("|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if ref else ""))
    for s in samplers:
        x = data[s]
        ess = fmt(x["ess"], ".0f") if x["ess"] is not None else f'n/a ({x["ess_note"]})'
        rh = fmt(x["rhat"], ".3f") if x["rhat"] is not None else f'n/a ({x["rhat_note"]})'
        line = (f'| {s} | {x["trials"]} x {x["steps"]} ({x["burn_in"]}) | {x["cpu_seconds"]:.2f} '
                f'| {x["cpu_seconds"] / base:.2f} | {ess} | {fmt(x["ess_per_cpu_second"], ".4g")} '
                f'| {fmt(x["ess_tail"], ".0f")} | {rh} | {fmt(x["energy_mean"], ".2f")} +- {fmt(x["energy_stderr"], ".2g")} |')
        if ref:
            line += f' {fmt(x["reference_ess"], ".0f")}, {fmt(x["reference_bulk_rhat"], ".3f")} |'
        rows.append(line)
    first = samplers[0]
    best = max(samplers[1:], key=lambda s: data[s]["ess_per_cpu_second"] or 0)
    a, b = data[first]["ess_per_cpu_second"], data[best]["ess_per_cpu_second"]
    ratio = a / b if a is not None and b else None
    warn = [s for s in samplers if data[s]["rhat"] is None or data[s]["rhat"] > 1.01
            or data[s]["ess"] is None or data[s]["ess"] < 100 * data[s]["trials"]]
    text = [f"Equal CPU: {model} at T = {temp}, seed {seed}; every sampler's trials get the CPU "
            f"time of {first}'s (burn-in included); ESS is the bulk ESS of the energy pooled over the trials.", ""]
    text += rows
    text += ["", f"ESS per CPU-second, {first} / best of the others ({best}): {fmt(ratio, '.3g')}"]
    if ref:
        text.append(f"reference: {ref} on the same energy.csv files (bulk R-hat only; it drops the first draw of an "
                    "odd-length chain where Stan drops the middle one, and leaves out Stan's last-lag terms: a few "
                    "percent apart on short runs)")
    if warn:
        text.append("warning: R-hat > 1.01 or bulk ESS < 100 per trial for " + ", ".join(warn) +
                    ": not converged or too short; the ratio is not reliable (more steps or trials)")
    data["ratio"], data["best_other"] = ratio, best
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(data, f, indent=2)
    print("\n".join(text))


def main(a):
    if len(a) >= 3 and a[0] == "get":
        print(result(a[1])[a[2]])
    elif len(a) == 3 and a[0] == "per-step":
        r = result(a[1])
        per = r["cpu_seconds"] / (r["trials"] * int(a[2]))
        if not per > 0:
            sys.exit(f"equal_cpu.py: no CPU time recorded in {a[1]}")
        print(repr(per))
    elif len(a) == 5 and a[0] == "steps":
        cpu, per, div, trials = float(a[1]), float(a[2]), float(a[3]), int(a[4])
        print(max(1, round(cpu / div / (trials * per))))
    elif len(a) >= 8 and a[0] == "table":
        table(a[1], a[2], a[3], a[4], a[5], a[6:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
