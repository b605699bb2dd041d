package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sardonics/model"
)

// TestExtremeScripts: issue 15, point 3. Models beyond model.MaxEnergy are
// refused at load time with exit 2 and file:line and the value; large but
// accepted ones (|J| = 1e12) give exact results that tell apart levels one
// unit apart, and exit 2 rather than NaN where beta E overflows. The
// scripts testdata/extreme_*.txt are the contract (see commandScript).
func TestExtremeScripts(t *testing.T) { commandScript(t, "extreme_") }

// TestExtremeNPZRefused: an .npz RBM has no lines; the refusal names the
// array and the element.
func TestExtremeNPZRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		w, b []float64
		want string
	}{
		{"w300.npz", []float64{1, 1e300}, []float64{0}, "w300.npz: array W of shape (1, 2): W[0, 1]: value 1e+300 too large (expected |value| <= 1e+15"},
		{"sum.npz", []float64{6e14, 1}, []float64{5e14}, "sum.npz: array b of shape (1,): b[0]: value 5e+14 brings the sum of |values| to 1.1e+15 (expected at most 1e+15"},
	} {
		var buf bytes.Buffer
		if err := model.WriteNPZ(&buf, &model.RBM{V: 1, H: 2, W: tc.w, B: tc.b, C: []float64{0, 0}}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := run(t, "exact", "--model", "rbm:"+p, "--T", "1")
		if ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (exit %d), want exit 2 and %q", tc.name, err, ExitCode(err), tc.want)
		}
	}
}

// TestExtremeSampleFinite: every sampler on models with couplings of 1e12
// (Ising text, QUBO, RBM) and at the bound, at beta 1, 1e-12 and 1e300,
// exits 0 without a panic, and every number it writes (stdout, stderr,
// summary.json, run.json, energy.csv, stats.json) is finite; the figures
// are drawn.
func TestExtremeSampleFinite(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ising := write("j12.txt", "4\n0 1 1e12\n1 2 -1e12\n2 3 1e12\n0 3 1\n0 0 0.5\n")
	edge := write("edge.txt", "0 1 5e14\n1 2 -2.5e14\n2 0 2.5e14\n")
	qubo := write("q12.qubo", "p qubo 0 4 2 3\n0 0 2e12\n3 3 -1e12\n0 1 4e12\n1 3 -1e12\n0 2 3\n")
	rbm := filepath.Join(dir, "rbm12.npz")
	if _, _, err := run(t, "gen", "--model", "rbm-random:V=6,H=4,seed=3,scale=1e12", "--out", rbm); err != nil {
		t.Fatal(err)
	}
	const sparse = "sardonics,gibbs,metropolis,sw"
	for _, tc := range []struct{ model, samplers string }{
		{ising, sparse}, {edge, sparse}, {qubo, sparse}, {"rbm:" + rbm, sparse + ",blockgibbs"},
	} {
		for _, beta := range []string{"1", "1e-12", "1e300"} {
			name := filepath.Base(tc.model) + "@" + beta
			out := filepath.Join(dir, name)
			stdout, stderr, err := run(t, "sample", "--model", tc.model, "--beta", beta, "--sampler", tc.samplers,
				"--steps", "200", "--burn", "50", "--trials", "2", "--seed", "1", "--out", out)
			if err != nil {
				t.Errorf("%s: %v\n%s", name, err, stderr)
				continue
			}
			for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if bad := nonFinite(s); bad != "" {
					t.Errorf("%s: %s has %q:\n%s", name, what, bad, s)
				}
			}
			checkFiniteOutputs(t, name, out)
			for _, f := range []string{"trace.png", "acf.png"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
}

// nonFinite is the first word of s that spells a NaN or an infinity, or "".
func nonFinite(s string) string {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\n,:;()[]{}=\"", r) }) {
		lw := strings.ToLower(strings.TrimLeft(w, "+-"))
		if lw == "nan" || lw == "inf" || lw == "infinity" || strings.Contains(w, "panic") {
			return w
		}
	}
	return ""
}

// checkFiniteOutputs reads every .json and .csv file under dir: JSON
// parses (encoding/json refuses NaN and infinities) and every CSV field
// after the header is a finite number.
func checkFiniteOutputs(t *testing.T, name, dir string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".json":
			files++
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("%s: %s: %v", name, rel, err)
			}
			if bad := nonFinite(string(b)); bad != "" {
				t.Errorf("%s: %s has %q", name, rel, bad)
			}
		case ".csv":
			files++
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			for k, l := range lines[1:] {
				for _, f := range strings.Split(l, ",") {
					if v, err := strconv.ParseFloat(f, 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s: %s:%d: %q is not a finite number", name, rel, k+2, f)
						return nil
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if files < 3 {
		t.Errorf("%s: only %d .json and .csv files under %s", name, files, dir)
	}
}
