package diag

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the chains under testdata/golden (then recompute the reference values with testdata/golden/reference.sh)")

// goldenCase is a set of deterministic chains stored under testdata/golden
// with the values that ../shared/tools/ess_reference.py, an independent numpy
// implementation of Stan's definitions, computed from them once
// (testdata/golden/reference.sh; see its output in testdata/golden/reference.txt).
type goldenCase struct {
	name   string
	chains int
	draws  int
	phi    float64                        // AR(1) coefficient
	shape  func(k int, x float64) float64 // chain k's draw from the AR(1) value
	// Reference values: bulk ESS and bulk R-hat of the draws, the R-hat of
	// the folded draws |x - median| (ess_reference.py on them) and the
	// tail ESS (ess_reference.py on the 5% and 95% quantile indicators:
	// rank normalization leaves the ESS of a two-valued series unchanged).
	bulkESS, bulkRhat, tailRhat, tailESS float64
}

var goldenCases = []goldenCase{
	{name: "ar1", chains: 4, draws: 500, phi: 0.8, bulkESS: 220.371, bulkRhat: 1.03145, tailRhat: 1.00238, tailESS: 555.166},
	{name: "shifted", chains: 4, draws: 1000, phi: 0.5, bulkESS: 17.87, bulkRhat: 1.15678, tailRhat: 1.01806, tailESS: 71.7733, shape: func(k int, x float64) float64 {
		if k == 3 {
			return x + 1.5
		}
		return x
	}},
	// Integer draws, many ties (like an Ising energy).
	{name: "ties", chains: 3, draws: 400, phi: 0.7, bulkESS: 170.238, bulkRhat: 1.03586, tailRhat: 1.0024, tailESS: 417.22, shape: func(k int, x float64) float64 { return math.Round(2 * x) }},
	{name: "slow", chains: 2, draws: 1000, phi: 0.97, bulkESS: 10.928, bulkRhat: 1.15885, tailRhat: 1.033, tailESS: 43.9089},
	{name: "antithetic", chains: 4, draws: 300, phi: -0.3, bulkESS: 2236.36, bulkRhat: 1.00124, tailRhat: 0.999501, tailESS: 1262.14},
	// One chain: split in two halves; an odd length drops the middle draw
	// in Go and Stan (ess_reference.py drops the first: same values here,
	// since the length is even).
	{name: "single", chains: 1, draws: 1000, phi: 0.9, bulkESS: 38.6197, bulkRhat: 1.00542, tailRhat: 1.00259, tailESS: 162.398},
	// Heavy tails and a scale difference between chains: the folded R-hat
	// exceeds the bulk one.
	{name: "scale", chains: 4, draws: 500, phi: 0.3, bulkESS: 1251.92, bulkRhat: 1.00114, tailRhat: 1.15839, tailESS: 259.705, shape: func(k int, x float64) float64 {
		if k >= 2 {
			return 3 * x
		}
		return x
	}},
}

func goldenDir(name string) string { return filepath.Join("testdata", "golden", name) }

// writeGolden regenerates the stored chains of c.
func writeGolden(t *testing.T, c goldenCase) {
	if err := os.MkdirAll(goldenDir(c.name), 0o755); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < c.chains; k++ {
		x := ar1(c.draws, c.phi, uint64(100+k))
		var b strings.Builder
		for _, v := range x {
			if c.shape != nil {
				v = c.shape(k, v)
			}
			b.WriteString(strconv.FormatFloat(v, 'g', 8, 64))
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(goldenDir(c.name), "chain-"+strconv.Itoa(k)+".txt"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readGolden(t *testing.T, c goldenCase) [][]float64 {
	var chains [][]float64
	for k := 0; k < c.chains; k++ {
		b, err := os.ReadFile(filepath.Join(goldenDir(c.name), "chain-"+strconv.Itoa(k)+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		var x []float64
		for _, l := range strings.Fields(string(b)) {
			v, err := strconv.ParseFloat(l, 64)
			if err != nil {
				t.Fatal(err)
			}
			x = append(x, v)
		}
		chains = append(chains, x)
	}
	return chains
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		if *updateGolden {
			writeGolden(t, c)
		}
		chains := readGolden(t, c)
		d := Diagnose(chains)
		t.Logf("%s: bulk ESS %.6g bulk R-hat %.6g tail R-hat %.6g tail ESS %.6g R-hat %.6g", c.name, d.BulkESS, d.BulkRhat, d.TailRhat, d.TailESS, d.Rhat)
		if d.Chains != c.chains || d.Draws != c.draws || d.SplitDraws != c.draws/2 {
			t.Errorf("%s: %d chains of %d draws (%d per half), want %d of %d", c.name, d.Chains, d.Draws, d.SplitDraws, c.chains, c.draws)
		}
		check := func(what string, got, want, tol float64) {
			if !(math.Abs(got-want) <= tol*want) {
				t.Errorf("%s: %s = %.6g, reference %.6g (relative difference %.2g > %g)", c.name, what, got, want, (got-want)/want, tol)
			}
		}
		// ess_reference.py omits two details of Stan's estimator (the
		// last even autocorrelation's "improved estimate" term and the
		// stop at lag n-3); they move these ESS by at most 0.7%.
		check("bulk ESS", d.BulkESS, c.bulkESS, 0.01)
		check("tail ESS", d.TailESS, c.tailESS, 0.01)
		check("bulk R-hat", d.BulkRhat, c.bulkRhat, 1e-3)
		check("tail R-hat", d.TailRhat, c.tailRhat, 1e-3)
		check("R-hat", d.Rhat, math.Max(c.bulkRhat, c.tailRhat), 1e-3)
		if d.BulkNote != "" || d.TailNote != "" || d.RhatNote != "" {
			t.Errorf("%s: notes %q %q %q on estimable chains", c.name, d.BulkNote, d.TailNote, d.RhatNote)
		}
	}
}
