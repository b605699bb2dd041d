#!/bin/sh
# Recomputes the reference values hard-coded in diag/golden_test.go from the
# stored chains, with the independent numpy implementation
# ess_reference.py (default ../../../../shared/tools/ess_reference.py, i.e.
# ../shared/tools from the repository root; or give its path). Not run by
# the tests: the repository does not depend on it.
#
# For each case it prints
#   bulk:  bulk_ess rhat chains draws       (the chains as stored)
#   fold:  bulk_ess rhat chains draws       (|x - median|: rhat is the tail R-hat)
#   q05:   bulk_ess rhat chains draws       (I(x <= q05): bulk_ess is the 5% quantile ESS)
#   q95:   ...                              (I(x <= q95))
# The tail ESS is min(q05, q95): rank normalization leaves the ESS of a
# two-valued series unchanged, so ess_reference.py's bulk ESS of an
# indicator is Stan's ESS of that indicator.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ref=${1:-$here/../../../../shared/tools/ess_reference.py}
[ -f "$ref" ] || { echo "reference.sh: $ref not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in "$here"/*/; do
  case=$(basename "$dir")
  /usr/bin/python3 - "$dir" "$tmp/$case" <<'PY'
import glob, os, sys
import numpy as np
src, dst = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(src, "chain-*.txt")))
chains = [np.loadtxt(f, ndmin=1) for f in files]
allx = np.concatenate(chains)
med = np.median(allx)
q = {p: np.quantile(allx, p / 100) for p in (5, 95)}  # numpy's default: R's type 7
for kind in ("fold", "q05", "q95"):
    os.makedirs(os.path.join(dst, kind), exist_ok=True)
for f, x in zip(files, chains):
    b = os.path.basename(f)
    np.savetxt(os.path.join(dst, "fold", b), np.abs(x - med), fmt="%.17g")
    np.savetxt(os.path.join(dst, "q05", b), (x <= q[5]).astype(float), fmt="%g")
    np.savetxt(os.path.join(dst, "q95", b), (x <= q[95]).astype(float), fmt="%g")
PY
  echo "$case bulk: $(/usr/bin/python3 "$ref" "$dir"/chain-*.txt)"
  for kind in fold q05 q95; do
    echo "$case $kind: $(/usr/bin/python3 "$ref" "$tmp/$case/$kind"/chain-*.txt)"
  done
done
