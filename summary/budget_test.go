package summary

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"sardonics/diag"
	"sardonics/replica"
)

// budgetTrial is trial t of a --budget run: n steps of an AR(1) chain
// about mu, the first burn of them at 1000 (a burn-in far from it).
func budgetTrial(t, n, burn int, mu float64, seed uint64) *TrialRecord {
	r := ar1Trial(t, n, 0.5, mu, seed)
	for i := range burn {
		r.Energies[i] = 1000
	}
	r.Magnetization = make([]int32, n)
	r.Observables = &TrialObservables{Spins: 10, Beta: 1}
	c := 0.2
	r.Budget = &TrialBudget{CPUSeconds: 2, BurnFraction: 0.2, Steps: n, BurnIn: burn, BurnCPUSeconds: &c}
	return r
}

// TestBudgetSummary (issue 23, item 2): trials of a --budget run, of
// different lengths and burn-ins, are each cut at their own burn-in; the
// means pool every kept draw, the ESS and R-hat the last n of each (n the
// shortest kept length); steps and burn_in are null with a note and each
// trial's are in budget, with how to repeat them; the work is in steps
// and sweeps; the warnings' remedy is a larger budget.
func TestBudgetSummary(t *testing.T) {
	recs := []*TrialRecord{budgetTrial(0, 3000, 500, 0, 1), budgetTrial(1, 4000, 800, 0, 2)}
	res := Summarize("s", recs, 1<<30, 0, 0)
	var kept [][]float64
	sum, n := 0.0, 0
	for _, r := range recs {
		x := r.Energies[r.Budget.BurnIn:]
		kept = append(kept, x)
		for _, v := range x {
			sum += v
			n++
		}
	}
	if math.Abs(res.EnergyMean-sum/float64(n)) > 1e-12 {
		t.Errorf("mean %v, want the kept draws' %v", res.EnergyMean, sum/float64(n))
	}
	d := diag.Diagnose(kept)
	if d.Draws != 2500 || res.ESS != d.BulkESS || res.Rhat == nil || *res.Rhat != d.Rhat {
		t.Errorf("ESS %v, R-hat %v: want the diagnostics of the last %d kept draws of each (%v, %v)", res.ESS, res.Rhat, d.Draws, d.BulkESS, d.Rhat)
	}
	b := res.Budget
	if b == nil || b.CPUSecondsPerTrial != 2 || len(b.TrialSteps) != 2 || b.TrialSteps[1] != 4000 || b.TrialBurnIn[1] != 800 || b.TrialCPUSeconds[0] != 2 {
		t.Fatalf("budget %+v", b)
	}
	if !strings.Contains(b.Reproduce, "trial 1: --trials 1 --trial-offset 1 --steps 4000 --burn 800") {
		t.Errorf("reproduce %q", b.Reproduce)
	}
	if res.TotalSteps != 7000 || res.FlipsPerStep == nil || *res.FlipsPerStep != 1 || res.Sweeps != 700 {
		t.Errorf("total steps %d, flips/step %v, sweeps %v (want 7000, 1, 7000 flips / 10 spins)", res.TotalSteps, res.FlipsPerStep, res.Sweeps)
	}
	m := roundTripMap(t, res)
	if m["steps"] != nil || m["burn_in"] != nil || m["steps_note"] == nil || m["burn_in_note"] == nil {
		t.Errorf("summary.json steps %v (%v), burn_in %v (%v): want null with a note", m["steps"], m["steps_note"], m["burn_in"], m["burn_in_note"])
	}
	if !strings.Contains(Table([]*Result{res}), "      7000        1.0        700") || !strings.Contains(BudgetNote([]*Result{res}), "s           steps 3000, 4000; burn-in 500, 800; cpu s 2, 2") {
		t.Errorf("table and note:\n%s%s", Table([]*Result{res}), BudgetNote([]*Result{res}))
	}
	// Equal trials repeat with one run.
	eq := Summarize("s", []*TrialRecord{budgetTrial(0, 3000, 500, 0, 1), budgetTrial(1, 3000, 500, 0, 2)}, 1<<30, 0, 0)
	if !strings.HasPrefix(eq.Budget.Reproduce, "replace --budget and --burn-fraction by --steps 3000 --burn 500") {
		t.Errorf("reproduce %q", eq.Budget.Reproduce)
	}
	// A run of --steps: as before.
	plain := Summarize("s", []*TrialRecord{ar1Trial(0, 3000, 0.5, 0, 1)}, 3000, 100, 0)
	if pm := roundTripMap(t, plain); plain.Budget != nil || pm["steps"] != float64(3000) || pm["burn_in"] != float64(100) || pm["steps_note"] != nil ||
		BudgetNote([]*Result{plain}) != "" {
		t.Errorf("a run of --steps: budget %+v, steps %v, burn_in %v", plain.Budget, pm["steps"], pm["burn_in"])
	}
	// Still falling in every trial: a larger budget is the remedy.
	for _, r := range recs {
		for i := range r.Energies {
			r.Energies[i] -= 0.05 * float64(i)
		}
	}
	w := strings.Join(Warnings([]*Result{Summarize("s", recs, 1<<30, 0, 0)}), "\n")
	if !strings.Contains(w, "not equilibrated: the energy is still falling") || !strings.Contains(w, "give a larger --budget or --burn-fraction") {
		t.Errorf("warnings %q", w)
	}
}

// TestSweepsWithoutFlips: samplers that count no flips (sw, blockgibbs)
// resample every spin each step: a step of every chain is a sweep.
func TestSweepsWithoutFlips(t *testing.T) {
	a, b := ar1Trial(0, 100, 0.5, 0, 1), ar1Trial(1, 100, 0.5, 0, 2)
	for _, r := range []*TrialRecord{a, b} {
		r.Flips, r.Observables = -1, &TrialObservables{Spins: 10}
	}
	b.Replica = &replica.Report{Ladder: []float64{0.1, 0.5, 1}, Sets: 2}
	res := Summarize("s", []*TrialRecord{a, b}, 100, 0, 0)
	if res.Sweeps != 100+600 || res.SweepsNote == "" || res.Flips != nil {
		t.Errorf("sweeps %v (%q), flips %v: want 100 + 100 x 3 rungs x 2 sets", res.Sweeps, res.SweepsNote, res.Flips)
	}
	a.Observables = nil
	if res := Summarize("s", []*TrialRecord{a}, 100, 0, 0); !math.IsNaN(res.Sweeps) || res.SweepsNote == "" {
		t.Errorf("without the model's size: sweeps %v (%q)", res.Sweeps, res.SweepsNote)
	}
}

// roundTripMap is r as summary.json holds it.
func roundTripMap(t *testing.T, r *Result) map[string]any {
	t.Helper()
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
