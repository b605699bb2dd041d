package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Runs shorter than --trace-draws keep every step, so their statistics are
// those of the version before thinning (d5dc88e) bit for bit: the golden
// summaries in testdata/prethinning were written by that version's build
// with these commands, and every mean, standard error, ESS, R-hat and
// tau_int (JSON numbers in Go's shortest round-trip form, so equal text is
// equal bits) must be the same, and so must the ACF's first 501 lags
// (0..500, all that version had: a slow sampler's acf now goes on).
func TestStatisticsBeforeThinningUnchanged(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"single.json", []string{"sample", "--model", "frustrated2d:L=8,seed=1", "--T", "1", "--sampler", "sardonics,metropolis,gibbs",
			"--steps", "3000", "--burn", "500", "--trials", "3", "--seed", "7", "--threads", "2", "--no-figures", "--quiet"}},
		{"replica.json", []string{"sample", "--model", "spinglass3d:L=4,seed=1", "--beta", "1", "--replicas", "4", "--overlap", "--sampler", "metropolis",
			"--steps", "2000", "--trials", "2", "--seed", "3", "--threads", "2", "--no-figures", "--quiet"}},
	} {
		out := filepath.Join(t.TempDir(), "run")
		if _, stderr, err := run(t, append(c.args, "--out", out)...); err != nil {
			t.Fatalf("%s: %v\n%s", c.golden, err, stderr)
		}
		want := statFields(t, filepath.Join("testdata", "prethinning", c.golden))
		got := statFields(t, filepath.Join(out, "summary.json"))
		if want["metropolis.energy_mean"] == "" || want["metropolis.ess"] == "" {
			t.Fatalf("%s: no statistics read", c.golden)
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s: %s = %s, want %s (d5dc88e's)", c.golden, k, g, w)
			}
		}
	}
	// The check can fail: thinned, the same chains give other estimates.
	out := filepath.Join(t.TempDir(), "thinned")
	args := []string{"sample", "--model", "frustrated2d:L=8,seed=1", "--T", "1", "--sampler", "sardonics,metropolis,gibbs",
		"--steps", "3000", "--burn", "500", "--trials", "3", "--seed", "7", "--threads", "2", "--no-figures", "--quiet", "--trace-draws", "256", "--out", out}
	if _, stderr, err := run(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want, got := statFields(t, filepath.Join("testdata", "prethinning", "single.json")), statFields(t, filepath.Join(out, "summary.json"))
	if want["metropolis.ess"] == got["metropolis.ess"] {
		t.Errorf("thinned to 256 draws, the ESS %s is the unthinned run's", got["metropolis.ess"])
	}
}

// statFields reads the statistics of every result in a summary.json as
// their JSON text, keyed by sampler and field.
func statFields(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range s.Results {
		var name string
		json.Unmarshal(r["sampler"], &name)
		for _, f := range []string{"energy_mean", "energy_stderr", "tau_int", "ess", "ess_tail", "rhat", "between_trial_sd", "trend_z"} {
			out[name+"."+f] = string(r[f])
		}
		out[name+".acf"] = firstLags(t, r["acf"], 501)
		var obs map[string]json.RawMessage
		json.Unmarshal(r["observables"], &obs)
		for _, o := range []string{"magnetization", "abs_magnetization", "specific_heat", "susceptibility"} {
			var e map[string]json.RawMessage
			json.Unmarshal(obs[o], &e)
			for _, f := range []string{"mean", "stderr", "ess", "rhat"} {
				out[name+"."+o+"."+f] = string(e[f])
			}
		}
	}
	return out
}

// firstLags is the JSON text of the first n values of the array acf, each
// as written (null when acf is).
func firstLags(t *testing.T, acf json.RawMessage, n int) string {
	t.Helper()
	var v []json.RawMessage
	if err := json.Unmarshal(acf, &v); err != nil {
		t.Fatalf("acf %.40s...: %v", acf, err)
	}
	if v == nil {
		return "null"
	}
	var b []byte
	for i, x := range v[:min(n, len(v))] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, x...)
	}
	return "[" + string(b) + "]"
}
