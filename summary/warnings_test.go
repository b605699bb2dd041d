package summary

import (
	"math"
	"strings"
	"testing"

	"sardonics/diag"
)

func TestWarnings(t *testing.T) {
	rh := func(x float64) *float64 { return &x }
	good := &Result{Sampler: "gibbs", Trials: 4, Rhat: rh(1.003), ESS: 2000}
	if w := Warnings([]*Result{good}); len(w) != 0 {
		t.Fatalf("converged result warned: %q", w)
	}
	split := &Result{Sampler: "sw", Trials: 4, Rhat: rh(1.9), ESS: 12, BetweenTrialSD: 60}
	none := &Result{Sampler: "sardonics", Trials: 2, RhatNote: "fewer than 6 draws per split chain", ESS: math.NaN(), ESSNote: "fewer than 6 draws per split chain"}
	w := Warnings([]*Result{good, split, none})
	if len(w) != 4 {
		t.Fatalf("warnings %q (expected R-hat and ESS for sw, both for sardonics)", w)
	}
	for i, want := range []string{"sampler sw: split-R-hat 1.900", "sampler sw: bulk ESS 12 ", "sampler sardonics: split-R-hat cannot be estimated", "sampler sardonics: bulk ESS n/a"} {
		if !strings.HasPrefix(w[i], want) {
			t.Errorf("warning %d = %q, expected it to start %q", i, w[i], want)
		}
	}
	if !strings.Contains(w[0], "its 4 trials disagree (their mean energies spread 60)") {
		t.Errorf("warning %q does not say how far the trials are apart", w[0])
	}
	one := &Result{Sampler: "gibbs", Trials: 1, Rhat: rh(1.05), ESS: 500, BetweenTrialSD: math.NaN()}
	if w := Warnings([]*Result{one}); len(w) != 1 || !strings.Contains(w[0], "the halves of its one trial disagree") || strings.Contains(w[0], "NaN") {
		t.Errorf("one-trial warning %q", w)
	}
}

// TestTrialMachines: the summary names every machine its trials ran on,
// once each, not the host that merged them.
func TestTrialMachines(t *testing.T) {
	recs := map[string][]*TrialRecord{
		"gibbs":     {{Trial: 1, Machine: "b: cpu"}, {Trial: 0, Machine: "a: cpu"}},
		"sardonics": {{Trial: 0, Machine: "a: cpu"}},
	}
	if got := trialMachines(recs, "merger"); got != "a: cpu; b: cpu" {
		t.Fatalf("machines %q", got)
	}
	if got := trialMachines(map[string][]*TrialRecord{"gibbs": {{Trial: 0}}}, "merger"); got != "merger" {
		t.Fatalf("without records: %q", got)
	}
}

// TestDriftNamed (issue 23, item 4): trials that agree but still descend
// are told they are not equilibrated (not that they disagree); stationary
// trials are not; the ESS warning gives the total and the per-trial ESS;
// a replica-exchange run's remedy names the ladder.
func TestDriftNamed(t *testing.T) {
	ramp := func(tr int, seed uint64) *TrialRecord {
		r := ar1Trial(tr, 4000, 0.5, 0, seed)
		for i := range r.Energies {
			r.Energies[i] -= 0.01 * float64(i) // falls 40 units over the run
		}
		return r
	}
	falling := Summarize("s", []*TrialRecord{ramp(0, 1), ramp(1, 2)}, 4000, 0, 0)
	w := Warnings([]*Result{falling})
	if len(w) == 0 || !strings.Contains(w[0], "not equilibrated: the energy is still falling in every trial") || strings.Contains(strings.Join(w, "\n"), "disagree") {
		t.Errorf("descending trials: %q", w)
	}
	still := Summarize("s", []*TrialRecord{ar1Trial(0, 4000, 0.5, 0, 3), ar1Trial(1, 4000, 0.5, 0, 4)}, 4000, 0, 0)
	if ok, _ := drifting(still); ok {
		t.Errorf("stationary trials called drifting: %v", still.Trend)
	}
	rh := 1.5
	few := &Result{Sampler: "s", Trials: 4, Rhat: &rh, ESS: 389.3, Replica: &ReplicaSummary{}}
	w = Warnings([]*Result{few})
	if len(w) != 2 || !strings.Contains(w[0], "give the ladder more replicas") || !strings.Contains(w[1], "bulk ESS 389.3 over 4 trials (97.3 per trial) is below 100 per trial") {
		t.Errorf("replica run with little ESS: %q", w)
	}
}

// TestMeanText (issue 25, item 4): the table shows the mean to its
// standard error's second digit, so units show at |E| ~ 1e12.
func TestMeanText(t *testing.T) {
	for _, c := range []struct {
		mean, se float64
		want     string
	}{
		{-680.8712, 0.279, "-680.87"}, {-679.04, 2.39, "-679.0"}, {-1.234567890123e12, 0.5, "-1234567890123.00"},
		{-1.234567890123e12, 3e4, "-1234567890123"}, {3.5, math.NaN(), "3.5"}, {math.NaN(), 1, "n/a"},
	} {
		if got := meanText(c.mean, c.se); got != c.want {
			t.Errorf("meanText(%v, %v) = %q, want %q", c.mean, c.se, got, c.want)
		}
	}
}

// TestSlowRelaxationNamed: trials still relaxing slowly (an AR(1) chain of
// autocorrelation time 2000 falling by 150, 7 of its standard deviations,
// over 40000 steps) fall within each quarter too. Counted as noise, that
// fall made each quarter's ESS a few draws and the drift 2.8 and 7.8
// standard errors, so the warning said the trials disagree; with the ESS
// of the quarters less their lines, both fall by more than 6 and are
// named as still falling (the case of a --budget run of SARDONICS on
// frustrated2d:L=400 at T = 1 with 2 s per trial).
func TestSlowRelaxationNamed(t *testing.T) {
	var recs []*TrialRecord
	for tr := range 2 {
		r := ar1Trial(tr, 40000, 0.999, 0, uint64(tr)+7)
		for i := range r.Energies {
			r.Energies[i] += 150 * math.Exp(-float64(i)/20000)
		}
		recs = append(recs, r)
	}
	res := Summarize("s", recs, 40000, 0, 0)
	w := strings.Join(Warnings([]*Result{res}), "\n")
	if !strings.Contains(w, "not equilibrated: the energy is still falling in every trial") {
		t.Errorf("trend z %v, warnings %q", []float64{*res.Trend[0], *res.Trend[1]}, w)
	}
}

// TestWarnsOverstatedESS: a bulk ESS far above what the spread of the
// trials' means allows is called overstated, for the energy and for q^2;
// one within the bound, or beside an R-hat warning, is not.
func TestWarnsOverstatedESS(t *testing.T) {
	rh := 1.003
	spread := &diag.Spread{ESS: 600, Lo: 240, Hi: 1200, Chains: 8}
	q2 := &Estimate{ESS: 39000, Rhat: 1.006, TrialESS: spread}
	over := &Result{Sampler: "s", Trials: 8, Rhat: &rh, ESS: 39000, TrialESS: spread, Replica: &ReplicaSummary{Q2: q2}}
	w := Warnings([]*Result{over})
	if len(w) != 2 || !strings.Contains(w[0], "the bulk ESS of the energy (3.9e+04) is above what the spread of its 8 trials' means allows (600;") ||
		!strings.Contains(w[1], "the bulk ESS of q^2 (3.9e+04)") {
		t.Errorf("overstated ESS: %q", w)
	}
	fine := &Result{Sampler: "s", Trials: 8, Rhat: &rh, ESS: 1500, TrialESS: spread, Replica: &ReplicaSummary{Q2: &Estimate{ESS: 1500, Rhat: 1.006, TrialESS: spread}}}
	if w := Warnings([]*Result{fine}); len(w) != 0 {
		t.Errorf("an ESS within the trials' bound called overstated: %q", w)
	}
	bad := 1.3
	split := &Result{Sampler: "s", Trials: 8, Rhat: &bad, ESS: 39000, TrialESS: spread}
	if w := Warnings([]*Result{split}); len(w) != 1 || strings.Contains(w[0], "overstated") || strings.Contains(w[0], "slow tail") {
		t.Errorf("beside an R-hat warning: %q", w)
	}
}
