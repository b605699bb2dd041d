#!/usr/bin/python3
"""Issue 41's check of one energy per state, on a finished `sample` run.

usage: one_energy.py RUN_DIR EXACT_JSON MODEL_FILE [REFERENCE]

RUN_DIR is a `sardonics sample --out` folder; EXACT_JSON what `sardonics exact
--json` printed for the same model and beta; MODEL_FILE the model as `sardonics
gen` writes it (.txt or .qubo, at most 22 variables: its every state's energy is
enumerated here, independently of the Go code); REFERENCE the independent ESS
reference (default ../shared/tools/ess_reference.py from the repository root).
For every sampler of the run it reads the pooled kept draws (SAMPLER/draws.npz:
the draws the summary's ESS and R-hat come from) and prints:

- the number of distinct energies among them, against the model's states;
- the largest distance of a draw from the nearest of the model's energies,
  relative to the model's energy scale (the largest |E|);
- the bulk ESS summary.json reports, Stan's ESS of the same draws with ties
  restored (values rounded to 1e-9) by REFERENCE, and their ratio;
- the mean energy's distance from exact's in reported standard errors.

Needs numpy (Debian: python3-numpy)."""
import importlib.util, json, os, sys, zipfile, io

import numpy as np


def load_reference(path):
    spec = importlib.util.spec_from_file_location("ess_reference", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def levels_of(path):
    """Every state's energy of a .txt (Ising) or .qubo model, enumerated."""
    rows, n, offset, qubo = [], None, 0.0, path.endswith(".qubo")
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if qubo and f[0] == "c":
            if len(f) == 3 and f[1] == "offset":
                offset = float(f[2])
            continue
        if qubo and f[0] == "p":
            n = int(f[3])
            continue
        if n is None:
            n = int(f[0])
            continue
        rows.append((int(f[0]), int(f[1]), float(f[2])))
    x = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    v = x.astype(float) if qubo else 2.0 * x - 1  # bits, or spins
    sign = 1.0 if qubo else -1.0
    e = np.full(2 ** n, offset)
    for i, j, w in rows:
        e += sign * w * (v[:, i] if i == j else v[:, i] * v[:, j])
    return np.unique(e), 2 ** n


def trial_draws(path):
    """The energy draws of each trial in SAMPLER/draws.npz."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        arr = np.load(io.BytesIO(z.read("energy.npy")))
        trials = np.load(io.BytesIO(z.read("trial.npy"))) if "trial.npy" in names else None
    if arr.ndim == 2:
        return [row for row in arr]
    if trials is None:
        return [arr]
    return [arr[trials == t] for t in np.unique(trials)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    run, exact_path = sys.argv[1], sys.argv[2]
    levels, states = levels_of(sys.argv[3])
    scale = np.max(np.abs(levels))
    ref = load_reference(sys.argv[4] if len(sys.argv) > 4 else
                         os.path.join(os.path.dirname(__file__), "..", "..", "shared", "tools", "ess_reference.py"))
    exact = json.load(open(exact_path))
    summary = json.load(open(os.path.join(run, "summary.json")))
    ok = True
    print(f"{'sampler':<11} {'distinct':>8} {'states':>6} {'max |E - level|/scale':>21} {'ESS':>10} {'ESS ref':>10} {'ratio':>6} {'mean - exact':>13} {'(errors)':>8}")
    for res in summary["results"]:
        name = res["sampler"]
        chains = trial_draws(os.path.join(run, name, "draws.npz"))
        flat = np.concatenate(chains)
        distinct = len(np.unique(flat))
        u = np.unique(flat)
        k = np.clip(np.searchsorted(levels, u), 1, len(levels) - 1)
        far = np.max(np.minimum(np.abs(u - levels[k - 1]), np.abs(u - levels[k])))
        ess_ref, _, _, _ = ref.bulk_ess_rhat([np.round(c, 9) for c in chains])
        ess = res["ess"]
        ratio = ess / ess_ref
        z = (res["energy_mean"] - exact["energy_mean"]) / res["energy_stderr"]
        print(f"{name:<11} {distinct:>8} {states:>6} {far / scale:>21.3g} {ess:>10.4g} {ess_ref:>10.4g} {ratio:>6.3f} {res['energy_mean'] - exact['energy_mean']:>13.3g} {z:>8.2f}")
        if distinct > states or far > 1e-12 * scale or not 0.7 <= ratio <= 1.3 or abs(z) > 4:
            ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
