package paper

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sardonics/summary"
	"strings"
	"testing"
)

func fptr(x float64) *float64 { return &x }

// good is a result with every value estimated.
func good(name string, tau, essCPU, mean float64) *summary.Result {
	return &summary.Result{Sampler: name, Trials: 2, Steps: 1000, BurnIn: 200, EnergyMean: mean, EnergyStderr: 0.5,
		TauInt: tau, ESS: 100, ESSTail: 90, Rhat: fptr(1.01), CPUSeconds: 2, ESSPerCPUSecond: essCPU,
		BetweenTrialSD: 0.4, AcceptanceRate: fptr(0.5), FlipsPerStep: fptr(3)}
}

// unestimable is a result of too short a run: what Summarize gives for 3
// steps and no burn-in (NaN with notes, R-hat nil).
func unestimable(name string) *summary.Result {
	const few = "fewer than 6 draws per split chain (2 chains of 3 draws)"
	return &summary.Result{Sampler: name, Trials: 2, Steps: 3, EnergyMean: -90.5,
		EnergyStderr: math.NaN(), EnergyStderrNote: "no ESS: " + few,
		TauInt: math.NaN(), TauIntNote: "fewer than 12 draws after burn-in in trial(s) 0, 1",
		ESS: math.NaN(), ESSNote: few, ESSTail: math.NaN(), ESSTailNote: few, RhatNote: few,
		ESSPerCPUSecond: math.NaN(), ESSPerCPUSecondNote: "no ESS: " + few,
		BetweenTrialSD: 25.4, AcceptanceRate: fptr(1), FlipsPerStep: fptr(13)}
}

func experiment(name string) Experiment {
	for _, e := range Experiments {
		if e.Name == name {
			return e
		}
	}
	panic(name)
}

// A result whose values could not be estimated shows n/a with its reason in
// a footnote, never NaN.
func TestTableNaN(t *testing.T) {
	o := &Outcome{Experiment: experiment("frustrated2d"), Results: []*summary.Result{unestimable("sardonics"), good("gibbs", 12, 40, -100)}}
	got := Table([]*Outcome{o}, Config{})
	if strings.Contains(got, "NaN") || strings.Contains(got, "Inf") {
		t.Errorf("table shows NaN:\n%s", got)
	}
	for _, want := range []string{
		"| frustrated2d | sardonics | 2 x 3 | 0 ms | 20 minutes | n/a [1] | n/a [2] | 1.000 | 13.0 | n/a [3] |",
		"| frustrated2d | gibbs | 2 x 1000 | 100.0 s | tens of seconds | 12 | 40 | 0.500 | 3.0 | 1.010 |",
		"- [1] tau_int: fewer than 12 draws after burn-in in trial(s) 0, 1\n",
		"- [2] ESS / CPU-s: no ESS: fewer than 6 draws per split chain (2 chains of 3 draws)\n",
		"- [3] split-R-hat: fewer than 6 draws per split chain (2 chains of 3 draws)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	// The same reason twice is one footnote; a missing note is a generic one.
	u := unestimable("sw")
	u.TauIntNote = ""
	o.Results = append(o.Results, unestimable("gibbs"), u)
	got = Table([]*Outcome{o}, Config{})
	if n := strings.Count(got, "\n- ["); n != 4 {
		t.Errorf("%d footnotes, want 4:\n%s", n, got)
	}
	if !strings.Contains(got, "- [4] tau_int: not estimable\n") {
		t.Errorf("no generic reason:\n%s", got)
	}
	// No footnotes where every value is there.
	o.Results = o.Results[1:2]
	if got = Table([]*Outcome{o}, Config{}); strings.Contains(got, "n/a") {
		t.Errorf("n/a without a missing value:\n%s", got)
	}
}

// The scores of a result with NaN values are unknown, with the reason:
// NaN <= 0 is false, so a plain test would have scored 1/NaN.
func TestScoresNaN(t *testing.T) {
	r := good("gibbs", 12, 40, -100)
	if s := perStep(r); s.why != "" || s.v != 1.0/12 {
		t.Errorf("perStep = %+v", s)
	}
	r.TauInt, r.TauIntNote = math.NaN(), "trace too short"
	if s := perStep(r); s.why != "tau_int of gibbs n/a: trace too short" || !math.IsNaN(s.v) {
		t.Errorf("perStep of a NaN tau_int = %+v", s)
	}
	r.ESSPerCPUSecond, r.ESSPerCPUSecondNote = math.NaN(), "no CPU time recorded"
	if s := perCPU(r); s.why != "ESS per CPU-second of gibbs n/a: no CPU time recorded" {
		t.Errorf("perCPU of a NaN ESS/CPU-s = %+v", s)
	}
	// Trials that disagree score 0 whatever the rest.
	r.Rhat = fptr(1.5)
	if s, c := perStep(r), perCPU(r); s != (score{}) || c != (score{}) {
		t.Errorf("unmixed: perStep %+v, perCPU %+v", s, c)
	}
	// Unknown R-hat: unknown whether they agree.
	r.Rhat, r.RhatNote = nil, "one chain"
	if s := perStep(r); s.why != "split-R-hat of gibbs n/a: one chain" {
		t.Errorf("perStep without R-hat = %+v", s)
	}
	// meanSE: max(se, NaN) is NaN in Go; the reason comes instead.
	r = good("gibbs", 12, 40, -100)
	if m, se, why := meanSE(r); m != -100 || se != 0.5 || why != "" {
		t.Errorf("meanSE = %g, %g, %q", m, se, why)
	}
	r.BetweenTrialSD, r.BetweenTrialSDNote = math.NaN(), "one trial with draws: no spread between trials"
	if _, _, why := meanSE(r); why != "between-trial SD of gibbs n/a: one trial with draws: no spread between trials" {
		t.Errorf("meanSE without a between-trial SD: %q", why)
	}
	r.Trials = 1 // one trial: the within-trial error alone
	if _, se, why := meanSE(r); se != 0.5 || why != "" {
		t.Errorf("meanSE of one trial = %g, %q", se, why)
	}
}

// A claim whose evidence is n/a says that it cannot be judged and why; it
// neither holds nor fails.
func TestClaimsNaN(t *testing.T) {
	fr := &Outcome{Experiment: experiment("frustrated2d"), Results: []*summary.Result{
		unestimable("sardonics"), good("gibbs", 12, 40, -100), good("sw", 30, 5, -100)}}
	rbm := &Outcome{Experiment: experiment("rbm"), Results: []*summary.Result{
		good("sardonics", 5, 10, -100), unestimable("sw"), good("gibbs", 50, 1, -100.3), unestimable("blockgibbs")}}
	got := Claims([]*Outcome{fr, rbm})
	if strings.Contains(got, "NaN") || strings.Contains(got, "Inf") {
		t.Errorf("claims show NaN:\n%s", got)
	}
	few := "split-R-hat of sardonics n/a: fewer than 6 draws per split chain (2 chains of 3 draws)"
	for _, want := range []string{
		"| SARDONICS beats Gibbs on the frustrated 2D model | frustrated2d | cannot be judged (" + few + ") | cannot be judged (" + few + ") |",
		"| Swendsen-Wang fails on the RBM (does not converge in 10^5 steps) | rbm | cannot be judged (split-R-hat of sw n/a: ",
		"| SARDONICS mixes better than Gibbs on the RBM | rbm | holds (0.2 vs 0.02) | holds (10 vs 1) |",
		"| SARDONICS mixes better than Swendsen-Wang on the RBM | rbm | cannot be judged (split-R-hat of sw n/a: ",
		"| SARDONICS compares well with block Gibbs on the RBM | rbm | cannot be judged (split-R-hat of blockgibbs n/a: ",
		"agrees with block Gibbs within 4 standard errors | rbm | cannot be judged (standard error of blockgibbs's mean energy n/a: no ESS: ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("claims lack %q:\n%s", want, got)
		}
	}
	// Known R-hat but unknown tau_int or ESS/CPU-s: that column alone.
	g := fr.get("sardonics")
	*g = *good("sardonics", 3, 100, -100)
	g.TauInt, g.TauIntNote = math.NaN(), "trace shorter than 10 Sokal windows"
	got = Claims([]*Outcome{fr})
	want := "| SARDONICS beats Gibbs on the frustrated 2D model | frustrated2d | cannot be judged (tau_int of sardonics n/a: trace shorter than 10 Sokal windows) | holds (100 vs 40) |"
	if !strings.Contains(got, want) {
		t.Errorf("claims lack %q:\n%s", want, got)
	}
	// Mean energies: agreement only with every standard error known.
	rbm.Results[3] = good("blockgibbs", 4, 20, -100.5)
	if got = Claims([]*Outcome{rbm}); !strings.Contains(got, "| rbm | holds (-100.00 +- 0.50 vs -100.50 +- 0.50: 0.71 SE) |") {
		t.Errorf("agreement:\n%s", got)
	}
	// A pipe in a reason stays inside its cell.
	rbm.Results[3].EnergyMean, rbm.Results[3].EnergyMeanNote = math.NaN(), "a | b"
	if got = Claims([]*Outcome{rbm}); !strings.Contains(got, `mean energy of blockgibbs n/a: a \| b)`) {
		t.Errorf("pipe not escaped:\n%s", got)
	}
}

// A summary.json with nulls (as runner writes it) reads back as NaN and
// renders as n/a.
func TestReadNulls(t *testing.T) {
	dir := t.TempDir()
	s := summary.Summary{Results: []*summary.Result{unestimable("sardonics"), unestimable("gibbs")}}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"tau_int":null`) {
		t.Fatalf("no null in %s", js)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := readOutcome(experiment("frustrated2d"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := o.get("gibbs"); !math.IsNaN(r.TauInt) || r.TauIntNote == "" {
		t.Errorf("tau_int read as %g (note %q)", r.TauInt, r.TauIntNote)
	}
	for _, got := range []string{Table([]*Outcome{o}, Config{}), Claims([]*Outcome{o})} {
		if strings.Contains(got, "NaN") || !strings.Contains(got, "n/a") {
			t.Errorf("rendered:\n%s", got)
		}
	}
}
