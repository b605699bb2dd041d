package summary

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"sardonics/diag"
)

// ar1Trial is a trial record whose energies are an AR(1) series with
// coefficient phi (tau_int = (1+phi)/(1-phi)) about mean mu.
func ar1Trial(t, n int, phi, mu float64, seed uint64) *TrialRecord {
	r := rand.New(rand.NewPCG(seed, 5))
	e := make([]float64, n)
	x := r.NormFloat64() / math.Sqrt(1-phi*phi)
	for i := range e {
		e[i] = mu + x
		x = phi*x + r.NormFloat64()
	}
	return &TrialRecord{Sampler: "s", Trial: t, Energies: e, CPUSeconds: 2, WallSeconds: 2.5, Flips: int64(n), Proposed: int64(n), Accepted: int64(n / 2)}
}

func keptOf(recs []*TrialRecord, burn int) [][]float64 {
	var k [][]float64
	for _, r := range recs {
		k = append(k, r.Energies[burn:])
	}
	return k
}

// roundTrip encodes r as summary.json does and decodes it again, failing on
// an encoding error (NaN) and returning the JSON object as a map too.
func roundTrip(t *testing.T, r *Result) (*Result, map[string]any, string) {
	t.Helper()
	s := &Summary{Results: []*Result{r}}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatalf("encoding: %v", err)
	}
	var back Summary
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatalf("decoding: %v\n%s", err, js)
	}
	var m struct{ Results []map[string]any }
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	return back.Results[0], m.Results[0], string(js)
}

// The summary's ESS is the pooled bulk ESS of the trials' kept energies,
// not a sum of n / tau; the standard error and ESS per CPU-second follow it.
func TestSummarizePooledESS(t *testing.T) {
	const trials, steps, burn, phi = 4, 21000, 1000, 0.9
	var recs []*TrialRecord
	for k := 0; k < trials; k++ {
		recs = append(recs, ar1Trial(k, steps, phi, -100, uint64(k+1)))
	}
	res := Summarize("s", recs, steps, burn, 0)
	kept := keptOf(recs, burn)
	d := diag.Diagnose(kept)
	if res.ESS != d.BulkESS || res.ESSTail != d.TailESS || res.Rhat == nil || *res.Rhat != d.Rhat {
		t.Errorf("ESS %v tail %v R-hat %v, diag says %v %v %v", res.ESS, res.ESSTail, res.Rhat, d.BulkESS, d.TailESS, d.Rhat)
	}
	tau := (1 + phi) / (1 - phi)
	if want := trials * (steps - burn) / tau; math.Abs(res.ESS-want) > 0.1*want {
		t.Errorf("ESS %.0f, want about %.0f", res.ESS, want)
	}
	if math.Abs(res.TauInt-tau) > 0.15*tau {
		t.Errorf("tau_int %.3g, want about %.3g", res.TauInt, tau)
	}
	if want := pooledSD(kept) / math.Sqrt(res.ESS); math.Abs(res.EnergyStderr-want) > 1e-12*want {
		t.Errorf("stderr %v, want sd/sqrt(ESS) = %v", res.EnergyStderr, want)
	}
	// The true standard error of the mean of 4 AR(1) chains.
	if want := math.Sqrt(tau / (1 - phi*phi) / (trials * (steps - burn))); math.Abs(res.EnergyStderr-want) > 0.1*want {
		t.Errorf("stderr %v, want about %v", res.EnergyStderr, want)
	}
	if res.CPUSeconds != 2*trials || res.ESSPerCPUSecond != res.ESS/res.CPUSeconds {
		t.Errorf("cpu %v, ESS/cpu-s %v", res.CPUSeconds, res.ESSPerCPUSecond)
	}
	if math.IsNaN(res.BetweenTrialSD) || math.Abs(res.EnergyMean+100) > 0.2 {
		t.Errorf("mean %v, between-trial SD %v", res.EnergyMean, res.BetweenTrialSD)
	}
	for name, note := range map[string]string{"energy_mean": res.EnergyMeanNote, "stderr": res.EnergyStderrNote, "tau": res.TauIntNote,
		"ess": res.ESSNote, "tail": res.ESSTailNote, "rhat": res.RhatNote, "ess/cpu": res.ESSPerCPUSecondNote, "sd": res.BetweenTrialSDNote} {
		if note != "" {
			t.Errorf("%s note %q on a healthy run", name, note)
		}
	}
	if len(res.ACF) != MaxACFLag+1 || res.ACF[0] != 1 || math.Abs(res.ACF[1]-phi) > 0.02 {
		t.Errorf("ACF %v...", res.ACF[:3])
	}
	back, m, js := roundTrip(t, res)
	if back.ESS != res.ESS || back.TauInt != res.TauInt || *back.Rhat != *res.Rhat || back.ESSTail != res.ESSTail {
		t.Errorf("round trip changed the result")
	}
	if _, ok := m["ess_note"]; ok {
		t.Errorf("ess_note present without cause:\n%s", js)
	}
}

// Trials that disagree: a small ESS and R-hat > 1.1, where the old sum of
// per-trial n / tau stayed large.
func TestSummarizeDisagreeingTrials(t *testing.T) {
	var recs []*TrialRecord
	for k := 0; k < 4; k++ {
		recs = append(recs, ar1Trial(k, 5000, 0.5, float64(3*k), uint64(10+k)))
	}
	res := Summarize("s", recs, 5000, 0, 0)
	sum := 0.0
	for _, r := range recs {
		tau, _ := diag.TauInt(r.Energies)
		sum += diag.ESS(len(r.Energies), tau)
	}
	if res.Rhat == nil || !(*res.Rhat > 1.1) {
		t.Errorf("R-hat %v, want > 1.1", res.Rhat)
	}
	if !(res.ESS < 100 && res.ESS < sum/50) {
		t.Errorf("pooled ESS %.1f, sum of n/tau %.0f: want the pooled one small", res.ESS, sum)
	}
	if !(res.EnergyStderr > 1) {
		t.Errorf("stderr %v: trials 3 apart must widen it", res.EnergyStderr)
	}
}

// A 1-trial run still gets a bulk ESS and an R-hat (from two halves); the
// spread between trials is null with a reason.
func TestSummarizeOneTrial(t *testing.T) {
	rec := ar1Trial(0, 10000, 0.8, 0, 3)
	res := Summarize("s", []*TrialRecord{rec}, 10000, 0, 0)
	if !(res.ESS > 0) || math.IsNaN(res.ESSTail) || res.Rhat == nil || math.IsNaN(res.EnergyStderr) || math.IsNaN(res.TauInt) {
		t.Errorf("one trial: ESS %v tail %v R-hat %v stderr %v tau %v", res.ESS, res.ESSTail, res.Rhat, res.EnergyStderr, res.TauInt)
	}
	if want := 10000 / 9.0; math.Abs(res.ESS-want) > 0.25*want {
		t.Errorf("one trial: ESS %.0f, want about %.0f", res.ESS, want)
	}
	_, m, js := roundTrip(t, res)
	if m["between_trial_sd"] != nil || !strings.Contains(m["between_trial_sd_note"].(string), "one trial") {
		t.Errorf("between_trial_sd of one trial:\n%s", js)
	}
}

// nullWithNote checks that field is null in the JSON object with a reason
// containing want next to it.
func nullWithNote(t *testing.T, m map[string]any, js, field, want string) {
	t.Helper()
	if v, ok := m[field]; !ok || v != nil {
		t.Errorf("%s = %v, want null\n%s", field, v, js)
	}
	note, _ := m[field+"_note"].(string)
	if !strings.Contains(note, want) {
		t.Errorf("%s_note = %q, want %q", field, note, want)
	}
	// The note follows its value.
	if i, j := strings.Index(js, `"`+field+`":`), strings.Index(js, `"`+field+`_note":`); !(i >= 0 && j > i) {
		t.Errorf("%s_note does not follow %s", field, field)
	}
}

// Values that cannot be estimated are null with a reason, never 0, NaN
// (which encoding/json rejects) or 1e16; the table says n/a.
func TestSummarizeUnestimable(t *testing.T) {
	// A 3-step run.
	short := []*TrialRecord{ar1Trial(0, 3, 0.5, -10, 1), ar1Trial(1, 3, 0.5, -10, 2)}
	res := Summarize("s", short, 3, 0, 0)
	_, m, js := roundTrip(t, res)
	for _, f := range []string{"ess", "ess_tail", "rhat", "energy_stderr", "ess_per_cpu_second"} {
		nullWithNote(t, m, js, f, "fewer than 6 draws per split chain")
	}
	nullWithNote(t, m, js, "tau_int", "fewer than 12 draws after burn-in in trial(s) 0, 1")
	if m["energy_mean"] == nil || m["between_trial_sd"] == nil {
		t.Errorf("3 steps: energy_mean %v, between_trial_sd %v, want numbers", m["energy_mean"], m["between_trial_sd"])
	}
	tab := Table([]*Result{res})
	// Six statistics, and the sweeps: these records give no model size.
	if strings.Count(tab, "n/a") != 7 || strings.Contains(tab, "NaN") {
		t.Errorf("table:\n%s", tab)
	}

	// Constant energies (a chain stuck in one state).
	flat := []*TrialRecord{{Trial: 0, Energies: make([]float64, 1000), CPUSeconds: 1}, {Trial: 1, Energies: make([]float64, 1000), CPUSeconds: 1}}
	for _, r := range flat {
		for i := range r.Energies {
			r.Energies[i] = -42
		}
	}
	res = Summarize("s", flat, 1000, 100, 0)
	_, m, js = roundTrip(t, res)
	for _, f := range []string{"ess", "ess_tail", "rhat", "energy_stderr", "ess_per_cpu_second"} {
		nullWithNote(t, m, js, f, "all draws are equal")
	}
	nullWithNote(t, m, js, "tau_int", "constant energy after burn-in in trial(s) 0, 1")
	if m["energy_mean"] != -42.0 || m["between_trial_sd"] != 0.0 {
		t.Errorf("constant: energy_mean %v, between_trial_sd %v", m["energy_mean"], m["between_trial_sd"])
	}
	if len(res.ACF) != 0 {
		t.Errorf("constant: ACF %v", res.ACF)
	}

	// Burn-in covering the whole run.
	res = Summarize("s", short, 3, 5, 0)
	_, m, js = roundTrip(t, res)
	nullWithNote(t, m, js, "energy_mean", "no draws after burn-in")
	nullWithNote(t, m, js, "between_trial_sd", "no draws after burn-in")
	nullWithNote(t, m, js, "tau_int", "fewer than 12 draws")
	nullWithNote(t, m, js, "ess", "fewer than 6 draws per split chain")

	// No CPU time measured (a millisecond trial).
	rec := ar1Trial(0, 2000, 0.5, 0, 9)
	rec.CPUSeconds = 0
	res = Summarize("s", []*TrialRecord{rec}, 2000, 0, 0)
	_, m, js = roundTrip(t, res)
	nullWithNote(t, m, js, "ess_per_cpu_second", "no CPU time recorded")
	nullWithNote(t, m, js, "ns_per_flip", "no CPU time recorded")
	if !(res.ESS > 0) {
		t.Errorf("ESS %v", res.ESS)
	}

	// A trace shorter than 10 Sokal windows: no tau_int from it.
	ramp := &TrialRecord{Trial: 0, Energies: make([]float64, 100)}
	for i := range ramp.Energies {
		ramp.Energies[i] = float64(i)
	}
	res = Summarize("s", []*TrialRecord{ramp, ar1Trial(1, 100, 0, 0, 1)}, 100, 0, 0)
	if math.IsNaN(res.TauInt) || !strings.Contains(res.TauIntNote, "Sokal windows (50 tau_int) in trial(s) 0;") {
		t.Errorf("short trace: tau %v note %q", res.TauInt, res.TauIntNote)
	}

	// One stuck trial among moving ones: tau_int from the others, said so.
	recs := []*TrialRecord{ar1Trial(0, 2000, 0.5, 0, 1), ar1Trial(1, 2000, 0.5, 0, 2), {Trial: 2, Energies: make([]float64, 2000), CPUSeconds: 1}}
	res = Summarize("s", recs, 2000, 0, 0)
	if math.IsNaN(res.TauInt) || !strings.Contains(res.TauIntNote, "trial(s) 2") || !strings.Contains(res.TauIntNote, "other 2") {
		t.Errorf("stuck trial: tau %v note %q", res.TauInt, res.TauIntNote)
	}
	if res.Rhat == nil || !(*res.Rhat > 1.1) {
		t.Errorf("stuck trial: R-hat %v", res.Rhat)
	}
}

// Every float field that is not finite encodes as null with a note, even one
// that Summarize did not explain; finite ones stay numbers.
func TestResultJSON(t *testing.T) {
	nan := math.NaN()
	r := &Result{Sampler: "x", EnergyMean: math.Inf(-1), ESS: math.NaN(), ESSNote: "why", CPUSeconds: 1.5, ACF: []float64{1}, BestTuningReward: &nan}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte("NaN")) || !bytes.Contains(js, []byte(`"energy_mean":null,"energy_mean_note":"not estimable"`)) ||
		!bytes.Contains(js, []byte(`"ess":null,"ess_note":"why"`)) || !bytes.Contains(js, []byte(`"cpu_seconds":1.5`)) {
		t.Errorf("%s", js)
	}
	if !bytes.Contains(js, []byte(`"best_tuning_reward":null,"best_tuning_reward_note":"not estimable"`)) || !bytes.Contains(js, []byte(`"rhat":null`)) {
		t.Errorf("omitempty / nil pointers: %s", js)
	}
	r.BestTuningReward = nil
	if js, _ := json.Marshal(r); bytes.Contains(js, []byte("best_tuning_reward")) {
		t.Errorf("omitempty: %s", js)
	}
	var back Result
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.ESS) || !math.IsNaN(back.EnergyMean) || back.CPUSeconds != 1.5 || back.ESSNote != "why" || back.Sampler != "x" {
		t.Errorf("decoded %+v", back)
	}
}
