package cli

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sardonics/summary"
)

// readCSV reads a CSV's rows after its header as numbers, by column name.
func readCSV(t *testing.T, path string) (header []string, cols map[string][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", path, len(rows), err)
	}
	cols = map[string][]float64{}
	for _, row := range rows[1:] {
		for c, s := range row {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			cols[rows[0][c]] = append(cols[rows[0][c]], v)
		}
	}
	return rows[0], cols
}

// Every rung's statistics through the command line, on the step clock
// (metropolis swaps every step) and every 10 steps (sardonics): the same
// chains with every round kept and thinned to 64 rounds (--trace-draws
// 256) give rungs.csv rows that agree where both kept a round, and each
// rung's mean energy and <q^2> in summary.json are the means over every
// round after the burn-in; the hottest rung is hotter than the target;
// the target rung's energy at a round's end is energy.csv's at that step;
// the printed table has every rung.
func TestRungMeansOverEveryRound(t *testing.T) {
	base := t.TempDir()
	args := []string{"sample", "--model", "spinglass3d:L=4,seed=1", "--beta", "2", "--replicas", "4", "--beta-min", "0.3", "--overlap",
		"--sampler", "metropolis,sardonics", "--steps", "6000", "--burn", "1000", "--trials", "2", "--seed", "3", "--no-figures", "--quiet"}
	all, thin := filepath.Join(base, "all"), filepath.Join(base, "thin")
	if _, stderr, err := run(t, append(args, "--out", all)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	stdout, stderr, err := run(t, append(args, "--out", thin, "--trace-draws", "256")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{"g Binder", "chi_SG", "<q^2>", "rungs hottest first"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("printed tables lack %q:\n%s", w, stdout)
		}
	}
	s := readSummary(t, thin)
	for _, res := range s.Results {
		rp := res.Replica
		if rp == nil || len(rp.PerRung) != 4 || rp.Q2 == nil || rp.Binder == nil || rp.ChiSG == nil || rp.Spins != 64 {
			t.Fatalf("%s: replica summary %+v", res.Sampler, rp)
		}
		every := 10
		if res.Sampler == "metropolis" {
			every = 1
		}
		sumE, sumQ := make([]float64, 4), make([]float64, 4)
		n := 0
		for tr := range 2 {
			_, full := readCSV(t, filepath.Join(summary.TrialDir(all, res.Sampler, tr), summary.RungsFile))
			_, kept := readCSV(t, filepath.Join(summary.TrialDir(thin, res.Sampler, tr), summary.RungsFile))
			if want := 5000 / every; len(full["round"]) != want || len(kept["round"]) > 64 || len(kept["round"]) < 32 {
				t.Fatalf("%s trial %d: %d rounds kept of every round, %d thinned; want %d and 32-64", res.Sampler, tr, len(full["round"]), len(kept["round"]), want)
			}
			for j, r := range kept["round"] {
				i := int(r) - 1
				for name, x := range kept {
					if full[name][i] != x[j] {
						t.Fatalf("%s trial %d round %v: thinned %s %v, every round's %v", res.Sampler, tr, r, name, x[j], full[name][i])
					}
				}
			}
			_, energy := readCSV(t, filepath.Join(summary.TrialDir(all, res.Sampler, tr), "energy.csv"))
			for i, st := range full["step"] {
				if int(st) != 1000+every*(i+1) || full["E_3"][i] != energy["energy"][int(st)-1] {
					t.Fatalf("%s trial %d: round %d ended at step %v with target energy %v; energy.csv has %v", res.Sampler, tr, i+1, st, full["E_3"][i], energy["energy"][int(st)-1])
				}
			}
			for k := range 4 {
				for i := range full["round"] {
					e, q := full["E_"+strconv.Itoa(k)][i], full["q_"+strconv.Itoa(k)][i]
					sumE[k] += e
					sumQ[k] += q * q
				}
			}
			n += len(full["round"])
		}
		for k, x := range rp.PerRung {
			e, q2 := sumE[k]/float64(n), sumQ[k]/float64(n)
			if math.Abs(x.Energy.Mean-e) > 1e-12*math.Abs(e) || math.Abs(x.Q2.Mean-q2) > 1e-12*q2 {
				t.Errorf("%s rung %d: E %v, <q^2> %v; every round's means %v, %v", res.Sampler, k, x.Energy.Mean, x.Q2.Mean, e, q2)
			}
			if !(x.Energy.Stderr > 0) || !(x.Energy.ESS > 0) || !(x.Energy.Rhat > 0) || !(x.Binder.Stderr > 0) {
				t.Errorf("%s rung %d: %+v", res.Sampler, k, x)
			}
		}
		if hot, cold := rp.PerRung[0].Energy, rp.PerRung[3].Energy; !(hot.Mean-cold.Mean > 4*math.Hypot(hot.Stderr, cold.Stderr)) {
			t.Errorf("%s: hottest rung's E %v +- %v is not above the target's %v +- %v", res.Sampler, hot.Mean, hot.Stderr, cold.Mean, cold.Stderr)
		}
	}
}

// Interrupted and resumed while every rung's rounds are thinned, with two
// sets, a replica run's files are the uninterrupted run's byte for byte.
func TestThinnedRungsResumeIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	full := resumeIsIdentical(t, "metropolis", []string{"energy.csv", "overlap.csv", summary.RungsFile, "walk.csv"},
		"sample", "--model", "frustrated2d:L=16,seed=3", "--T", "1", "--sampler", "metropolis", "--replicas", "4", "--overlap",
		"--steps", "40000", "--burn", "3000", "--trials", "2", "--seed", "5", "--quiet", "--no-figures", "--trace-draws", "256")
	for _, tr := range []string{"trial-0", "trial-1"} {
		r, err := summary.ReadTrial(filepath.Join(full, "metropolis", tr))
		if err != nil || r.Rungs == nil || !r.Rungs.Thinning.Thinned() {
			t.Errorf("%s: rungs %+v (%v): not thinned", tr, r.Rungs, err)
		}
	}
}
