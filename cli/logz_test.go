package cli

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sardonics/exact"
	"sardonics/logz"
	"sardonics/model"
	"sardonics/npy"
)

// logzJSON runs logz with args and --json and decodes what it prints.
func logzJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errs, err := run(t, append([]string{"logz", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("logz %v: %v\n%s", args, err, errs)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("logz %v: %v\n%s", args, err, out)
	}
	return o
}

// TestLogzMatchesExact: both methods, through the command, within 4
// reported errors of exact enumeration (fixed seeds: the same numbers
// every time), and the JSON's fields as documented.
func TestLogzMatchesExact(t *testing.T) {
	m, err := model.Load("frustrated2d:L=3,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := exact.Enumerate(m, 1.2)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"ais", "re"} {
		o := logzJSON(t, "--model", "frustrated2d:L=3,seed=4", "--beta", "1.2", "--method", method, "--steps", "2000", "--runs", "8", "--seed", "3")
		lnZ, se := o["ln_z"].(float64), o["ln_z_stderr"].(float64)
		if o["method"] != method || !(se > 0 && se < 0.1) || math.Abs(lnZ-ex.LnZ) > 4*se {
			t.Errorf("%s: ln Z %v +- %v, exact %v", method, lnZ, se, ex.LnZ)
		}
		if f := o["free_energy"].(float64); math.Abs(f+lnZ/1.2) > 1e-12 {
			t.Errorf("%s: free energy %v (want -ln Z / beta %v)", method, f, -lnZ/1.2)
		}
		if !strings.Contains(o["reproduce"].(string), "--steps 2000 --runs 8 --seed 3") {
			t.Errorf("%s: reproduce %q", method, o["reproduce"])
		}
	}
}

// TestLogzBudgetReproduce: a --budget run's reproduce flags repeat it
// bit for bit, and --threads does not change the output.
func TestLogzBudgetReproduce(t *testing.T) {
	spec := []string{"--model", "sk:N=8,seed=2", "--T", "0.8"}
	for _, method := range []string{"ais", "re"} {
		o := logzJSON(t, append(spec, "--method", method, "--budget", "150ms", "--runs", "4")...)
		again := logzJSON(t, append(append(spec, strings.Fields(o["reproduce"].(string))...), "--threads", "1")...)
		if o["ln_z"] != again["ln_z"] || o["ln_z_stderr"] != again["ln_z_stderr"] || o["budget_seconds"] != 0.15 {
			t.Errorf("%s: %v +- %v, reproduced (%s) %v +- %v", method, o["ln_z"], o["ln_z_stderr"], o["reproduce"], again["ln_z"], again["ln_z_stderr"])
		}
	}
}

// TestLogzData: an RBM's mean ln p(v) over rows, against exact ln Z and
// the exact free energies; --out writes each row's value and logz.json.
func TestLogzData(t *testing.T) {
	dir := t.TempDir()
	const spec = "rbm-random:V=10,H=4,seed=3,scale=0.8"
	m, err := model.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	rows := make([][]uint8, 30)
	for k := range rows {
		rows[k] = make([]uint8, 10)
		for i := range rows[k] {
			rows[k][i] = uint8(r.IntN(2))
		}
	}
	data := filepath.Join(dir, "v.npy")
	if err := os.WriteFile(data, npy.U8Rows(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	ex, err := exact.Enumerate(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	fe := logz.FreeEnergies(m.RBM, 1, rows)
	want := 0.0
	for _, f := range fe {
		want += (f - ex.LnZ) / float64(len(fe))
	}
	for _, base := range []string{"uniform", "data"} {
		out := filepath.Join(dir, base)
		o := logzJSON(t, "--model", spec, "--beta", "1", "--data", data, "--base-rate", base, "--steps", "300", "--runs", "32", "--out", out)
		mean, se := o["mean_log_prob"].(float64), o["mean_log_prob_stderr"].(float64)
		if !(se > 0 && se < 0.1) || math.Abs(mean-want) > 4*se || o["rows"] != 30.0 || o["base_rate"] != base {
			t.Errorf("%s: mean ln p %v +- %v, exact %v (%v rows)", base, mean, se, want, o["rows"])
		}
		raw, err := os.ReadFile(filepath.Join(out, "log_prob.npy"))
		if err != nil {
			t.Fatal(err)
		}
		f, msg := npy.Split(raw)
		if msg != "" || f.Descr != "<f8" || len(f.Shape) != 1 || f.Shape[0] != 30 {
			t.Fatalf("log_prob.npy: %v %+v", msg, f)
		}
		for _, name := range []string{"logz.json", "log_weights.npy"} {
			if _, err := os.Stat(filepath.Join(out, name)); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestLogzErrors: every bad input exits 2 with a message that names it.
func TestLogzErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npy")
	os.WriteFile(bad, npy.F8([]float64{0, 0.5, 1}, 1, 3), 0o644)
	wide := filepath.Join(dir, "wide.npy")
	os.WriteFile(wide, npy.U8Rows([][]uint8{{0, 1, 1, 0}}), 0o644)
	m := []string{"logz", "--model", "frustrated2d:L=3", "--beta", "1"}
	rbm := []string{"logz", "--model", "rbm-random:V=3,H=2", "--beta", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(m, "--method", "mcmc"), "--method"},
		{append(m, "--steps", "10", "--budget", "1s"), "give one of them"},
		{append(m, "--runs", "1"), "--runs 1"},
		{append(m, "--steps", "0"), "--steps 0"},
		{append(m, "--budget", "0s"), "--budget"},
		{append(m, "--budget", "1ns"), "--budget"},
		{append(m, "--rungs", "5"), "--rungs"},
		{append(m, "--sampler", "sw"), "cannot change its temperature"},
		{append(m, "--sampler", "nosuch"), "unknown sampler"},
		{append(m, "--method", "re", "--sampler", "metropolis", "--steps", "10"), "metropolis"},
		{append(m, "--data", bad), "not an RBM"},
		{append(rbm, "--data", bad), "holds 0.5"},
		{append(rbm, "--data", wide), "expected 3"},
		{append(rbm, "--data", filepath.Join(dir, "none.npy")), "--data"},
		{append(rbm, "--base-rate", "data"), "--data"},
		{append(m, "--threads=-1"), "--threads"},
		{append(m, "--T", "0"), "--T 0"},
		{[]string{"logz", "--beta", "1"}, "--model"},
	} {
		_, errs, status, _ := asMain(c.args)
		if status != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)", c.args[1:], status, errs, c.want)
		}
	}
}
