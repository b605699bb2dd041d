package paper

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sardonics/summary"
	"strings"
)

// Outcome is one experiment's results.
type Outcome struct {
	Experiment Experiment
	Results    []*summary.Result
	Steps      int
}

func readOutcome(ex Experiment, dir string) (*Outcome, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var s summary.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "summary.json"), err)
	}
	o := &Outcome{Experiment: ex, Results: s.Results}
	if len(s.Results) > 0 {
		o.Steps = s.Results[0].Steps
	}
	return o, nil
}

func (o *Outcome) get(name string) *summary.Result {
	for _, r := range o.Results {
		if r.Sampler == name {
			return r
		}
	}
	return nil
}

// mixed says whether a sampler's trials agree (split-R-hat below 1.1).
// Where R-hat could not be estimated (nil) it says false; the claims ask
// rhatUnknown first and do not judge such a sampler.
func mixed(r *summary.Result) bool { return r.Rhat != nil && *r.Rhat < 1.1 }

func fmtOpt(p *float64, f string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(f, *p)
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// num formats x, or "n/a" when it is NaN or infinite (a value that could
// not be estimated; see summary.Result).
func num(f string, x float64) string {
	if !isFinite(x) {
		return "n/a"
	}
	return fmt.Sprintf(f, x)
}

// reason is a note of summary.Result, or a generic one where it is empty
// (summaries written before the notes were).
func reason(note string) string {
	if note == "" {
		return "not estimable"
	}
	return note
}

// footnotes numbers the reasons of the n/a cells of a table, one number per
// distinct field and reason.
type footnotes struct {
	list []string
	idx  map[string]int
}

// na is "n/a" with the number of the footnote that gives field's reason.
func (fn *footnotes) na(field, note string) string {
	t := field + ": " + reason(note)
	if fn.idx == nil {
		fn.idx = map[string]int{}
	}
	k, ok := fn.idx[t]
	if !ok {
		fn.list = append(fn.list, t)
		k = len(fn.list)
		fn.idx[t] = k
	}
	return fmt.Sprintf("n/a [%d]", k)
}

// cell formats x with f, or n/a with a footnote for field's note.
func (fn *footnotes) cell(f string, x float64, field, note string) string {
	if !isFinite(x) {
		return fn.na(field, note)
	}
	return fmt.Sprintf(f, x)
}

func (fn *footnotes) write(b *strings.Builder) {
	if len(fn.list) == 0 {
		return
	}
	fmt.Fprintf(b, "\nn/a: the value could not be estimated.\n\n")
	for i, t := range fn.list {
		fmt.Fprintf(b, "- [%d] %s\n", i+1, t)
	}
}

// Table renders table.md.
func Table(outs []*Outcome, cfg Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Timings and mixing, paper protocol\n\n")
	fmt.Fprintf(&b, "CPU time is per trial (thread CPU time), scaled to 10^5 steps; SARDONICS's includes its Bayesian-optimization tuning. ")
	fmt.Fprintf(&b, "tau_int is in steps of each sampler (a sweep for Gibbs, one move for SARDONICS). ")
	fmt.Fprintf(&b, "R-hat above 1.1 means the trials disagree: that sampler's tau_int and ESS are not to be trusted. ")
	fmt.Fprintf(&b, "Paper times: its Table II (MATLAB/Python with C, 8 CPUs). ")
	var cost []string
	for _, o := range outs {
		if CostTuned[o.Experiment.Name] {
			cost = append(cost, o.Experiment.Name)
		}
	}
	if len(cost) > 0 {
		fmt.Fprintf(&b, "SARDONICS on %s is tuned with the cost reward (flips per autocorrelation time), not the paper's, to fit the run in an hour.", strings.Join(cost, ", "))
	}
	fmt.Fprintf(&b, "\n\n")
	fmt.Fprintf(&b, "| experiment | sampler | trials x steps | CPU per 10^5 steps | paper (10^5 samples) | tau_int (steps) | ESS / CPU-s | acceptance | flips/step | split-R-hat |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var fn footnotes
	for _, o := range outs {
		for _, r := range o.Results {
			per := r.CPUSeconds / float64(max(1, r.Trials)) * 1e5 / float64(max(1, r.Steps))
			var cpu string
			if isFinite(per) {
				cpu = human(per)
			} else {
				cpu = fn.na("CPU time", "")
			}
			paper := o.Experiment.PaperTimes[r.Sampler]
			if paper == "" {
				paper = "-"
			}
			// Footnotes numbered in reading order.
			tau := fn.cell("%.3g", r.TauInt, "tau_int", r.TauIntNote)
			essCPU := fn.cell("%.4g", r.ESSPerCPUSecond, "ESS / CPU-s", r.ESSPerCPUSecondNote)
			var rh string
			if r.Rhat != nil && isFinite(*r.Rhat) {
				rh = fmt.Sprintf("%.3f", *r.Rhat)
			} else {
				rh = fn.na("split-R-hat", r.RhatNote)
			}
			fmt.Fprintf(&b, "| %s | %s | %d x %d | %s | %s | %s | %s | %s | %s | %s |\n", o.Experiment.Name, r.Sampler,
				r.Trials, r.Steps, cpu, paper, tau, essCPU, fmtOpt(r.AcceptanceRate, "%.3f"), fmtOpt(r.FlipsPerStep, "%.1f"), rh)
		}
	}
	fn.write(&b)
	return b.String()
}

func human(sec float64) string {
	switch {
	case sec < 1:
		return fmt.Sprintf("%.0f ms", sec*1e3)
	case sec < 120:
		return fmt.Sprintf("%.1f s", sec)
	case sec < 7200:
		return fmt.Sprintf("%.1f min", sec/60)
	}
	return fmt.Sprintf("%.1f h", sec/3600)
}

// claim compares sampler a against b on one experiment: a "beats" b when
// its tau_int is smaller (per step) or its ESS per CPU-second larger;
// a sampler whose trials disagree (R-hat >= 1.1) never beats one whose
// trials agree.
type claim struct {
	text       string
	experiment string
	a, b       string
	kind       string // "beats", "comparable" (within a factor 2), "fails" (a does not mix), "agrees" (same mean energy within 4 SE)
}

var claims = []claim{
	{"Swendsen-Wang mixes considerably better than SARDONICS at the critical temperature", "ferro-T2.27", "sw", "sardonics", "beats"},
	{"SARDONICS does much better than Gibbs at the critical temperature", "ferro-T2.27", "sardonics", "gibbs", "beats"},
	{"At T = 5 SARDONICS is comparable to Swendsen-Wang", "ferro-T5", "sardonics", "sw", "comparable"},
	{"At T = 1 SARDONICS performs well (beats Gibbs)", "ferro-T1", "sardonics", "gibbs", "beats"},
	{"SARDONICS beats Gibbs on the frustrated 2D model", "frustrated2d", "sardonics", "gibbs", "beats"},
	{"SARDONICS beats Swendsen-Wang on the frustrated 2D model", "frustrated2d", "sardonics", "sw", "beats"},
	{"On the 3D spin glass Swendsen-Wang deteriorates while SARDONICS mixes reasonably well", "spinglass3d", "sardonics", "sw", "beats"},
	{"SARDONICS beats Gibbs on the 3D spin glass", "spinglass3d", "sardonics", "gibbs", "beats"},
	{"Swendsen-Wang fails on the RBM (does not converge in 10^5 steps)", "rbm", "sw", "", "fails"},
	{"SARDONICS mixes better than Swendsen-Wang on the RBM", "rbm", "sardonics", "sw", "beats"},
	{"SARDONICS mixes better than Gibbs on the RBM", "rbm", "sardonics", "gibbs", "beats"},
	{"SARDONICS compares well with block Gibbs on the RBM", "rbm", "sardonics", "blockgibbs", "comparable"},
	{"(issue #6) SARDONICS's mean energy on the RBM agrees with block Gibbs within 4 standard errors", "rbm", "sardonics", "blockgibbs", "agrees"},
	{"SARDONICS beats Gibbs on the chimera", "chimera", "sardonics", "gibbs", "beats"},
	{"SARDONICS beats Swendsen-Wang on the chimera", "chimera", "sardonics", "sw", "beats"},
}

// score is a sampler's goodness on a claim (higher is better); why, where
// not empty, says why it cannot be had (a value that could not be
// estimated), and v is then NaN.
type score struct {
	v   float64
	why string
}

func unknown(why string) score { return score{v: math.NaN(), why: why} }

// rhatUnknown says why it cannot be told whether r's trials agree: its
// split-R-hat could not be estimated. It is empty where R-hat is known.
func rhatUnknown(r *summary.Result) string {
	if r.Rhat == nil || !isFinite(*r.Rhat) {
		return fmt.Sprintf("split-R-hat of %s n/a: %s", r.Sampler, reason(r.RhatNote))
	}
	return ""
}

// perStep and perCPU are "goodness" scores: 1/tau_int and ESS per
// CPU-second, 0 for a sampler whose trials disagree, unknown where the
// value (or R-hat) could not be estimated.
func perStep(r *summary.Result) score {
	if why := rhatUnknown(r); why != "" {
		return unknown(why)
	}
	if !mixed(r) {
		return score{v: 0}
	}
	if !isFinite(r.TauInt) {
		return unknown(fmt.Sprintf("tau_int of %s n/a: %s", r.Sampler, reason(r.TauIntNote)))
	}
	if r.TauInt <= 0 {
		return unknown(fmt.Sprintf("tau_int of %s is %.3g, not positive", r.Sampler, r.TauInt))
	}
	return score{v: 1 / r.TauInt}
}

func perCPU(r *summary.Result) score {
	if why := rhatUnknown(r); why != "" {
		return unknown(why)
	}
	if !mixed(r) {
		return score{v: 0}
	}
	if !isFinite(r.ESSPerCPUSecond) {
		return unknown(fmt.Sprintf("ESS per CPU-second of %s n/a: %s", r.Sampler, reason(r.ESSPerCPUSecondNote)))
	}
	return score{v: r.ESSPerCPUSecond}
}

// cannotJudge is the verdict of a claim whose evidence could not be
// estimated, with the reasons.
func cannotJudge(why ...string) string {
	var w []string
	for _, s := range why {
		if s != "" {
			w = append(w, s)
		}
	}
	return "cannot be judged (" + strings.Join(w, "; ") + ")"
}

func verdict(kind string, sa, sb score) string {
	if sa.why != "" || sb.why != "" {
		return cannotJudge(sa.why, sb.why)
	}
	a, b := sa.v, sb.v
	switch kind {
	case "beats":
		if a > b {
			return fmt.Sprintf("holds (%.3g vs %.3g)", a, b)
		}
		return fmt.Sprintf("does not hold (%.3g vs %.3g)", a, b)
	case "comparable":
		if a > 0 && b > 0 && a/b > 0.5 && a/b < 2 {
			return fmt.Sprintf("holds (ratio %.2f)", a/b)
		}
		if b > 0 {
			return fmt.Sprintf("does not hold (ratio %.2f)", a/b)
		}
		return "does not hold"
	}
	return "?"
}

// meanSE is a sampler's mean energy and its standard error: the larger of
// the within-trial estimate and the spread of the trial means, so trials
// that disagree widen it rather than pass unnoticed. why, where not empty,
// says which of them could not be estimated.
func meanSE(r *summary.Result) (m, se float64, why string) {
	if !isFinite(r.EnergyMean) {
		return math.NaN(), math.NaN(), fmt.Sprintf("mean energy of %s n/a: %s", r.Sampler, reason(r.EnergyMeanNote))
	}
	if !isFinite(r.EnergyStderr) {
		return math.NaN(), math.NaN(), fmt.Sprintf("standard error of %s's mean energy n/a: %s", r.Sampler, reason(r.EnergyStderrNote))
	}
	se = r.EnergyStderr
	if r.Trials > 1 {
		if !isFinite(r.BetweenTrialSD) {
			return math.NaN(), math.NaN(), fmt.Sprintf("between-trial SD of %s n/a: %s", r.Sampler, reason(r.BetweenTrialSDNote))
		}
		se = max(se, r.BetweenTrialSD/math.Sqrt(float64(r.Trials)))
	}
	return r.EnergyMean, se, ""
}

// agreement says whether two samplers' mean energies agree within 4 SE.
func agreement(a, b *summary.Result) string {
	ma, sa, wa := meanSE(a)
	mb, sb, wb := meanSE(b)
	if wa != "" || wb != "" {
		return cannotJudge(wa, wb)
	}
	h := math.Hypot(sa, sb)
	if !(h > 0) {
		return cannotJudge(fmt.Sprintf("standard errors of %s and %s are both 0", a.Sampler, b.Sampler))
	}
	z := (ma - mb) / h
	v := "does not hold"
	if math.Abs(z) < 4 {
		v = "holds"
	}
	return fmt.Sprintf("%s (%.2f +- %.2f vs %.2f +- %.2f: %.2f SE)", v, ma, sa, mb, sb, z)
}

// mdCell keeps s inside one Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// Claims renders claims.md.
func Claims(outs []*Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The paper's claims, checked\n\n")
	fmt.Fprintf(&b, "Per step compares 1/tau_int (tau_int in each sampler's own steps); per CPU-second compares ESS per CPU-second. ")
	fmt.Fprintf(&b, "A sampler whose trials disagree (split-R-hat >= 1.1) scores 0. ")
	fmt.Fprintf(&b, "A claim whose evidence could not be estimated (n/a) cannot be judged; the reason follows. Numbers are A vs B.\n\n")
	fmt.Fprintf(&b, "| claim | experiment | per step | per CPU-second |\n|---|---|---|---|\n")
	for _, c := range claims {
		var o *Outcome
		for _, x := range outs {
			if x.Experiment.Name == c.experiment {
				o = x
			}
		}
		if o == nil {
			continue
		}
		a := o.get(c.a)
		if a == nil {
			continue
		}
		var ps, pc string
		if c.kind == "agrees" {
			bb := o.get(c.b)
			if bb == nil {
				continue
			}
			ps = agreement(a, bb)
			pc = ps
		} else if c.kind == "fails" {
			if why := rhatUnknown(a); why != "" {
				ps = cannotJudge(why)
			} else if rh := fmt.Sprintf("%.3f", *a.Rhat); !mixed(a) {
				ps = "holds (split-R-hat " + rh + ")"
			} else {
				ps = fmt.Sprintf("does not hold (split-R-hat %s, tau_int %s)", rh, num("%.3g", a.TauInt))
			}
			pc = ps
		} else {
			bb := o.get(c.b)
			if bb == nil {
				continue
			}
			ps = verdict(c.kind, perStep(a), perStep(bb))
			pc = verdict(c.kind, perCPU(a), perCPU(bb))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.text, c.experiment, mdCell(ps), mdCell(pc))
	}
	return b.String()
}
