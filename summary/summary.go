package summary

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"sardonics/diag"
	"sardonics/internal/fsum"
	"sardonics/model"
	"sardonics/report"
	"sardonics/sampler"
)

// Meta identifies a run; `report` merges only folders whose Meta agree
// (timing aside).
type Meta struct {
	Spec         string  `json:"spec"`
	Variables    int     `json:"variables"`
	Interactions int     `json:"interactions"`
	Beta         float64 `json:"beta"`
	Seed         uint64  `json:"seed"`
	Steps        int     `json:"steps"`    // 0 in a --budget run
	BurnIn       int     `json:"burn_in"`  // 0 in a --budget run
	Settings     string  `json:"settings"` // sardonics settings (theta, layout, weight, accept, tuning)
	// A --budget run's thread CPU per trial and burn-in fraction (absent
	// in a run of --steps): the trials' own steps and burn-in are in their
	// stats.json and in summary.json.
	TrialBudget  float64 `json:"budget_cpu_seconds_per_trial,omitempty"`
	BurnFraction float64 `json:"burn_fraction,omitempty"`
}

// Result is one sampler's entry in summary.json (SPEC section 5).
//
// A float64 field that cannot be estimated holds NaN; summary.json shows it
// as null with the reason in the "_note" field that follows it (MarshalJSON),
// and Table shows "n/a".
type Result struct {
	Sampler string `json:"sampler"`
	Trials  int    `json:"trials"`
	// Steps and BurnIn are every trial's steps and burn-in; null in a
	// --budget run, whose trials each made their own (Budget), with the
	// reason in the notes.
	Steps          int     `json:"steps"`
	StepsNote      string  `json:"steps_note,omitempty"`
	BurnIn         int     `json:"burn_in"`
	BurnInNote     string  `json:"burn_in_note,omitempty"`
	EnergyMean     float64 `json:"energy_mean"` // over every kept draw of every trial
	EnergyMeanNote string  `json:"energy_mean_note,omitempty"`
	// EnergyStderr is the Monte Carlo standard error of EnergyMean:
	// the standard deviation of the kept draws over sqrt(ESS).
	EnergyStderr     float64 `json:"energy_stderr"`
	EnergyStderrNote string  `json:"energy_stderr_note,omitempty"`
	// TauInt is the integrated autocorrelation time of each trial with
	// Sokal's window (diag.TauInt), averaged over the trials.
	TauInt     float64 `json:"tau_int"`
	TauIntNote string  `json:"tau_int_note,omitempty"`
	// ESS is the bulk effective sample size pooled over the trials as Stan
	// computes it (diag.Diagnose: split, rank-normalized chains, Geyer's
	// initial monotone sequence): trials that disagree lower it.
	ESS     float64 `json:"ess"`
	ESSNote string  `json:"ess_note,omitempty"`
	// ESSTail is the tail ESS: the smaller of the 5% and 95% quantiles'.
	ESSTail     float64 `json:"ess_tail"`
	ESSTailNote string  `json:"ess_tail_note,omitempty"`
	// Rhat is the rank-normalized split R-hat (max of bulk and folded).
	Rhat        *float64 `json:"rhat"`
	RhatNote    string   `json:"rhat_note,omitempty"`
	WallSeconds float64  `json:"wall_seconds"`
	CPUSeconds  float64  `json:"cpu_seconds"` // summed over the trials
	// ESSPerCPUSecond is ESS / CPUSeconds.
	ESSPerCPUSecond     float64  `json:"ess_per_cpu_second"`
	ESSPerCPUSecondNote string   `json:"ess_per_cpu_second_note,omitempty"`
	AcceptanceRate      *float64 `json:"acceptance_rate"`
	// TotalSteps is the steps of all trials together.
	TotalSteps   int64    `json:"total_steps"`
	Flips        *int64   `json:"flips"`
	FlipsPerStep *float64 `json:"flips_per_step"`
	// Sweeps is the work of all trials in sweep-equivalents: flips / N
	// (every replica's flips with --replicas), or, for the samplers that
	// resample every spin each step and count no flips (sw, blockgibbs),
	// the steps of every chain.
	Sweeps        float64  `json:"sweeps"`
	SweepsNote    string   `json:"sweeps_note,omitempty"`
	NsPerFlip     *float64 `json:"ns_per_flip"`
	NsPerFlipNote string   `json:"ns_per_flip_note,omitempty"`
	// BetweenTrialSD is the spread of the per-trial mean energies.
	BetweenTrialSD     float64 `json:"between_trial_sd"`
	BetweenTrialSDNote string  `json:"between_trial_sd_note,omitempty"`
	// Observables are m, |m|, the specific heat and the susceptibility
	// (see observables.go); nil with the reason in ObservablesNote when the
	// trials recorded no magnetization.
	Observables     *Observables `json:"observables,omitempty"`
	ObservablesNote string       `json:"observables_note,omitempty"`
	// Marginals are the pooled spin means and pair correlations with
	// --marginals (in SAMPLER/marginals.npy and correlations.npy).
	Marginals        *Marginals `json:"marginals,omitempty"`
	MarginalsNote    string     `json:"marginals_note,omitempty"`
	ACF              []float64  `json:"acf"`
	Params           *string    `json:"params"`
	TrialIDs         []int      `json:"trial_ids"`
	BestTuningReward *float64   `json:"best_tuning_reward,omitempty"`
	// Trend is each trial's drift: the mean energy of the last quarter of
	// its kept draws minus the first quarter's, in standard errors of that
	// difference (NaN: too few draws). Large values of one sign in every
	// trial mean the chains are still relaxing (burn-in too short), not
	// that they disagree.
	// In summary.json a trial without one is null.
	Trend []*float64 `json:"trend_z,omitempty"`
	// Replica summarizes replica exchange (--replicas).
	Replica *ReplicaSummary `json:"replica,omitempty"`
	// Budget is a --budget run's: each trial's share of thread CPU, the
	// steps it made and discarded, and how to repeat it exactly (nil: a
	// run of --steps).
	Budget *BudgetSummary `json:"budget,omitempty"`
}

// BudgetSummary is what the trials of a --budget run were given and did,
// in the order of trial_ids.
type BudgetSummary struct {
	CPUSecondsPerTrial float64 `json:"cpu_seconds_per_trial"` // each trial's share of --budget
	BurnFraction       float64 `json:"burn_fraction"`
	TrialSteps         []int   `json:"trial_steps"`
	TrialBurnIn        []int   `json:"trial_burn_in"`
	// TrialCPUSeconds is the thread CPU each trial spent (it stops at the
	// first check of its clock past its share: about a millisecond over).
	TrialCPUSeconds []float64 `json:"trial_cpu_seconds"`
	// StepCapped lists the trials that stopped at the run's step bound
	// before their budget (their CPU falls short of the share).
	StepCapped []int `json:"step_capped,omitempty"`
	// Pooling says how trials of different lengths are pooled.
	Pooling string `json:"pooling"`
	// Reproduce says how to repeat the run's chains bit for bit.
	Reproduce string `json:"reproduce"`
}

// budgetPooling is BudgetSummary.Pooling.
const budgetPooling = "means, energy_stderr's standard deviation and the observables' variances over every kept draw of every trial; " +
	"ESS, tail ESS and R-hat (and so the standard errors) over the last n kept draws of each trial, n the shortest trial's, " +
	"which makes the errors slightly conservative; tau_int per trial over its own kept draws"

// MarshalJSON writes r's fields in order, a float64 (or *float64) that is
// NaN or infinite as null (JSON has neither); such a value's "_note" field
// says why, a generic reason standing in if Summarize left none.
func (r Result) MarshalJSON() ([]byte, error) {
	return marshalNotes(reflect.ValueOf(r), "result "+r.Sampler)
}

// UnmarshalJSON reads what MarshalJSON writes: a null or missing float64 is
// NaN.
func (r *Result) UnmarshalJSON(data []byte) error {
	type plain Result
	p := plain{}
	setNaN(reflect.ValueOf(&p).Elem())
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = Result(p)
	return nil
}

// marshalNotes writes the struct v's fields in order as a JSON object, a
// float64 (or *float64) that is NaN or infinite as null followed by a
// "NAME_note" field saying why: the struct's own note field where it has a
// non-empty one, else "not estimable". what names v in errors.
func marshalNotes(v reflect.Value, what string) ([]byte, error) {
	t := v.Type()
	notes := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); strings.HasSuffix(name, "_note") && !v.Field(i).IsZero() {
			notes[name] = true
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	put := func(name string, val []byte) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	for i := 0; i < t.NumField(); i++ {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		f := v.Field(i)
		if name == "-" || opts == "omitempty" && f.IsZero() {
			continue
		}
		if f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.Float64 {
			f = f.Elem()
		}
		if f.Kind() == reflect.Int && notes[name+"_note"] { // a count that does not apply: its note says why
			put(name, []byte("null"))
			continue
		}
		if f.Kind() == reflect.Float64 && !isFinite(f.Float()) {
			put(name, []byte("null"))
			if !notes[name+"_note"] {
				put(name+"_note", []byte(`"not estimable"`))
			}
			continue
		}
		js, err := json.Marshal(f.Interface())
		if err != nil {
			return nil, fmt.Errorf("%s: field %s: %v", what, name, err)
		}
		put(name, js)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// setNaN sets every float64 field of the struct v to NaN, so that one
// JSON leaves null or out reads as NaN.
func setNaN(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() == reflect.Float64 {
			v.Field(i).SetFloat(math.NaN())
		}
	}
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Summary is summary.json.
type Summary struct {
	Model struct {
		Spec         string `json:"spec"`
		Variables    int    `json:"variables"`
		Interactions int    `json:"interactions"`
	} `json:"model"`
	Beta    float64   `json:"beta"`
	Seed    uint64    `json:"seed"`
	Machine string    `json:"machine,omitempty"`
	Results []*Result `json:"results"`
	// Warnings name the samplers whose numbers cannot be trusted (see
	// Warnings).
	Warnings []string `json:"warnings,omitempty"`
}

// trialMachines is the machines the trials of recs ran on, in order of
// first appearance, joined by "; "; fallback (the summarizing host) when
// no trial recorded one.
func trialMachines(recs map[string][]*TrialRecord, fallback string) string {
	var names []string
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	for _, k := range sampler.CanonicalOrder(keys) {
		for _, r := range SortedTrials(recs[k]) {
			if r.Machine != "" && !slices.Contains(names, r.Machine) {
				names = append(names, r.Machine)
			}
		}
	}
	if len(names) == 0 {
		return fallback
	}
	return strings.Join(names, "; ")
}

// Convergence thresholds of Vehtari et al. (2021): a split-R-hat above
// MaxRhat means the trials disagree; a bulk ESS below MinESSPerTrial per
// trial is too few draws for the R-hat and ESS themselves to be reliable.
const (
	MaxRhat        = 1.01
	MinESSPerTrial = 100
)

// Warnings says, for each result whose statistics cannot be trusted, which
// sampler, what was measured and what to do.
func Warnings(results []*Result) []string {
	var out []string
	for _, r := range results {
		more, burn := "more steps", "increase --burn (and --steps)"
		if r.Budget != nil {
			more, burn = "a larger --budget", "give a larger --budget or --burn-fraction"
		}
		remedy := "run " + more + ", more trials, or replica exchange"
		if r.Replica != nil {
			remedy = "run " + more + " or more trials, or give the ladder more replicas, a lower --beta-min or --ladder adaptive (see the round trips in replicas.png)"
		}
		drift, way := drifting(r)
		switch {
		case drift:
			out = append(out, fmt.Sprintf("sampler %s: not equilibrated: the energy is still %s in every trial (last quarter of the kept draws against the first, beyond %d standard errors), so its mean, error and ESS are not to be trusted; %s",
				r.Sampler, way, maxTrendZ, burn))
		case r.Rhat != nil && *r.Rhat > MaxRhat:
			what := "the halves of its one trial disagree"
			if r.Trials > 1 {
				what = fmt.Sprintf("its %d trials disagree", r.Trials)
				if !math.IsNaN(r.BetweenTrialSD) {
					what += fmt.Sprintf(" (their mean energies spread %.4g)", r.BetweenTrialSD)
				}
			}
			out = append(out, fmt.Sprintf("sampler %s: split-R-hat %.3f > %.2f: %s, so its mean, error and ESS are not to be trusted; %s",
				r.Sampler, *r.Rhat, MaxRhat, what, remedy))
		case r.Rhat == nil:
			out = append(out, fmt.Sprintf("sampler %s: split-R-hat cannot be estimated (%s); run %s", r.Sampler, r.RhatNote, more))
		}
		if rp := r.Replica; rp != nil && rp.RoundTripsPerTrial < 1 && rp.RungsNeeded > rp.Rungs {
			out = append(out, fmt.Sprintf("sampler %s: %.3g round trips per trial: %d replicas do not connect the ladder; %s says this range of temperatures needs about %d for swap acceptance 0.23 between neighbours (--replicas %d --ladder variance), or a higher --beta-min",
				r.Sampler, rp.RoundTripsPerTrial, rp.Rungs, rp.RungsNeededFrom, rp.RungsNeeded, rp.RungsNeeded))
		}
		if r.Trials > 0 && !(r.ESS >= MinESSPerTrial*float64(r.Trials)) {
			ess := "n/a (" + r.ESSNote + ")"
			if !math.IsNaN(r.ESS) {
				ess = fmt.Sprintf("%.4g over %s (%.3g per trial)", r.ESS, plural(r.Trials, "trial"), r.ESS/float64(r.Trials))
			}
			out = append(out, fmt.Sprintf("sampler %s: bulk ESS %s is below %d per trial: too few effective draws for reliable estimates; run %s",
				r.Sampler, ess, MinESSPerTrial, more))
		}
	}
	return out
}

// plural is "1 trial" or "n trials".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// MaxACFLag is the largest lag kept in summaries and plots.
const MaxACFLag = 500

// minTauDraws is the fewest kept draws of a trial for a tau_int: as many as
// the pooled diagnostics need (two split chains of diag.MinSplitDraws).
const minTauDraws = 2 * diag.MinSplitDraws

// Summarize computes a sampler's result from its trial records. wall is the
// elapsed time of the sampler's phase (0: sum of the trials' wall times).
// The trials are the chains of the pooled diagnostics (diag.Diagnose) over
// their energies after burn-in; a single trial is split in halves like every
// chain. Values that cannot be estimated are NaN with a note (see Result).
// Trials of a --budget run (TrialRecord.Budget) each have their own steps
// and burn-in, which replace steps and burn (see budgetPooling).
func Summarize(name string, recs []*TrialRecord, steps, burn int, wall float64) *Result {
	res := &Result{Sampler: name, Trials: len(recs), Steps: steps, BurnIn: burn, Replica: summarizeReplica(recs, burn)}
	kept := make([][]float64, len(recs))
	for i, r := range recs {
		kept[i] = r.kept(burn)
		res.TrialIDs = append(res.TrialIDs, r.Trial)
		res.TotalSteps += int64(len(r.Energies))
	}
	res.budget(recs)
	// The diagnostics of long traces hold arrays of their length: the
	// energy's and the observables', then the ACF's at twice the length
	// (its FFT plan and arrays: 80 bytes a draw). Garbage is collected and
	// given back to the system before each of these phases (the caller's
	// too, such as the model), and diag's arrays are let go after each,
	// so that the summary's peak is its largest phase's rather than their
	// sum, or twice that before a collection comes due.
	collect(res.TotalSteps)
	res.energy(kept)
	res.observables(recs, kept)
	res.trend(kept) // after the others: its transforms are a quarter as long
	res.marginals(recs)
	collect(res.TotalSteps)
	res.autocorrelation(recs, kept)
	collect(0)
	res.work(recs, wall)
	return res
}

// collectSteps is the fewest steps (of all trials) whose summary collects
// garbage between its phases: below it, its arrays are a few MB at most.
const collectSteps = 1 << 18

// collect lets diag's work arrays go and, for a summary of steps of at
// least collectSteps, collects garbage and returns the free memory to the
// system (debug.FreeOSMemory: a few milliseconds, as the summary's arrays
// hold no pointers). Collecting alone leaves the freed pages to the
// allocator, where a larger array of the next phase may not fit between
// them: the 10^6-step summary then peaked 4 MB above the sampling.
func collect(steps int64) {
	diag.Release()
	if steps >= collectSteps {
		debug.FreeOSMemory()
	}
}

// budget sets res.Budget from the trials of a --budget run: what each was
// given and did, how they are pooled and how to repeat them.
func (res *Result) budget(recs []*TrialRecord) {
	if len(recs) == 0 || recs[0].Budget == nil {
		return
	}
	b := &BudgetSummary{CPUSecondsPerTrial: recs[0].Budget.CPUSeconds, BurnFraction: recs[0].Budget.BurnFraction, Pooling: budgetPooling}
	for _, r := range recs {
		if r.Budget == nil { // not from one run: report refuses to merge such folders
			return
		}
		b.TrialSteps = append(b.TrialSteps, len(r.Energies))
		b.TrialBurnIn = append(b.TrialBurnIn, r.Budget.BurnIn)
		b.TrialCPUSeconds = append(b.TrialCPUSeconds, r.CPUSeconds)
		if r.Budget.StepCap != "" {
			b.StepCapped = append(b.StepCapped, r.Trial)
		}
	}
	b.Reproduce = reproduce(b.TrialSteps, b.TrialBurnIn, res.TrialIDs)
	res.Budget = b
	res.Steps, res.BurnIn = 0, 0
	res.StepsNote = "a --budget run: each trial made its own number of steps (budget.trial_steps)"
	res.BurnInNote = "a --budget run: each trial discarded its own burn-in (budget.trial_burn_in)"
}

// reproduce says how to repeat a --budget run's chains bit for bit: a
// trial's chain depends only on (seed, trial, sampler) and its steps and
// burn-in, so a run of --steps S --burn B repeats a trial of S steps and
// burn-in B on any machine, and --trials 1 --trial-offset T picks trial T.
func reproduce(steps, burn, ids []int) string {
	same := true
	for i := range steps {
		same = same && steps[i] == steps[0] && burn[i] == burn[0]
	}
	if same {
		return fmt.Sprintf("replace --budget and --burn-fraction by --steps %d --burn %d: every trial made %d steps and discarded the first %d", steps[0], burn[0], steps[0], burn[0])
	}
	var parts []string
	for i, id := range ids {
		parts = append(parts, fmt.Sprintf("trial %d: --trials 1 --trial-offset %d --steps %d --burn %d", id, id, steps[i], burn[i]))
	}
	return "replace --budget and --burn-fraction, for each trial alone (each into its own --out: report does not merge runs of different --steps), by its steps and burn-in: " +
		strings.Join(parts, "; ") + "; --steps and --burn of the trials' shortest length and smallest burn-in repeat every trial's first steps in one run"
}

// energy sets the mean energy, the pooled diagnostics (bulk and tail ESS,
// split-R-hat), the standard error and the spread between the trials'
// means, from the kept draws of each trial.
func (res *Result) energy(kept [][]float64) {
	var means []float64
	for _, x := range kept {
		if len(x) > 0 {
			means = append(means, pooledMean([][]float64{x}))
		}
	}
	res.EnergyMean = pooledMean(kept)
	switch {
	case len(means) == 0:
		res.EnergyMeanNote = fmt.Sprintf("no draws after burn-in (%d steps, burn-in %d)", res.Steps, res.BurnIn)
		if res.Budget != nil {
			res.EnergyMeanNote = fmt.Sprintf("no draws after burn-in (trials of %v steps, burn-in %v)", res.Budget.TrialSteps, res.Budget.TrialBurnIn)
		}
	case !isFinite(res.EnergyMean):
		res.EnergyMeanNote = "non-finite energies"
	}
	d := diag.Diagnose(kept)
	res.ESS, res.ESSNote = d.BulkESS, d.BulkNote
	res.ESSTail, res.ESSTailNote = d.TailESS, d.TailNote
	if isFinite(d.Rhat) {
		rh := d.Rhat
		res.Rhat = &rh
	} else {
		res.RhatNote = d.RhatNote
	}
	res.EnergyStderr = pooledSD(kept) / math.Sqrt(res.ESS)
	switch {
	case isFinite(res.EnergyStderr):
	case !isFinite(res.ESS):
		res.EnergyStderrNote = "no ESS: " + res.ESSNote
	default:
		res.EnergyStderrNote = "fewer than 2 draws"
	}
	res.BetweenTrialSD = math.NaN()
	switch len(means) {
	case 0:
		res.BetweenTrialSDNote = "no draws after burn-in"
	case 1:
		res.BetweenTrialSDNote = "one trial with draws: no spread between trials"
	default:
		res.BetweenTrialSD = math.Sqrt(sampleVariance(means))
	}
}

// trend sets each trial's drift, res.Trend.
func (res *Result) trend(kept [][]float64) {
	res.Trend = make([]*float64, len(kept))
	for i, x := range kept {
		if z := trendZ(x); isFinite(z) {
			res.Trend[i] = &z
		}
	}
}

// trendZ is the last quarter's mean of x minus the first quarter's, over
// the standard error of that difference: each quarter's SD over the root
// of the bulk ESS of the quarter less its least-squares line. A chain
// still relaxing falls within each quarter too, and that fall, counted as
// autocorrelation, made the ESS a few draws and hid the drift
// (TestSlowRelaxationNamed); for a stationary chain whose autocorrelation
// time is well below a quarter, removing a line changes the ESS little.
// Where it is not (a quarter of 2.5 autocorrelation times), a stationary
// trial exceeds 6 standard errors 4% of the time (1% before), and every
// trial of a run the same way far less; such a run has too few effective
// draws to be trusted either way. NaN with fewer than 4 x 20 draws or no
// spread.
func trendZ(x []float64) float64 {
	q := len(x) / 4
	if q < 20 {
		return math.NaN()
	}
	a, b := x[:q], x[len(x)-q:]
	se2 := 0.0
	for _, part := range [][]float64{a, b} {
		r := detrended(part)
		ess := diag.BulkOnly([][]float64{r}).BulkESS
		se2 += sampleVariance(part) / ess
	}
	z := (pooledMean([][]float64{b}) - pooledMean([][]float64{a})) / math.Sqrt(se2)
	if !isFinite(z) {
		return math.NaN()
	}
	return z
}

// detrended is x less its least-squares line in the index.
func detrended(x []float64) []float64 {
	n := float64(len(x))
	tm, xm := (n-1)/2, pooledMean([][]float64{x})
	var sxy, sxx float64
	for i, v := range x {
		d := float64(i) - tm
		sxy += d * (v - xm)
		sxx += d * d
	}
	slope := sxy / sxx
	r := make([]float64, len(x))
	for i, v := range x {
		r[i] = v - xm - slope*(float64(i)-tm)
	}
	return r
}

// drifting says whether every trial of r drifts the same way by more than
// maxTrendZ standard errors, and which way.
func drifting(r *Result) (bool, string) {
	up, down := 0, 0
	for _, z := range r.Trend {
		switch {
		case z == nil:
		case *z > maxTrendZ:
			up++
		case *z < -maxTrendZ:
			down++
		}
	}
	switch n := len(r.Trend); {
	case n > 0 && down == n:
		return true, "falling"
	case n > 0 && up == n:
		return true, "rising"
	}
	return false, ""
}

// maxTrendZ is the drift, in standard errors, beyond which a trial is
// still relaxing: a stationary chain exceeds 6 with probability about
// 2e-9 (in every trial at once, far less).
const maxTrendZ = 6

// autocorrelation sets tau_int and the plotted ACF, each averaged over
// the trials that have one, and says why the others have none.
func (res *Result) autocorrelation(recs []*TrialRecord, kept [][]float64) {
	acfSum := []float64{}
	var taus []float64
	// Trials without a tau_int: too few draws, constant, Sokal's window not
	// reached, tau not positive.
	var few, flat, short, bad []int
	for i, x := range kept {
		tr := recs[i].Trial
		if len(x) < minTauDraws {
			few = append(few, tr)
			continue
		}
		if slices.Min(x) == slices.Max(x) {
			flat = append(flat, tr)
			continue
		}
		tau, w, rho := diag.TauACF(x, MaxACFLag) // one transform for tau and the plotted ACF
		if 10*w > len(x) {
			// Sokal's relative error of tau, sqrt(2(2W+1)/n), exceeds
			// 60%: tau(W) of such a trace says little (a ramp of 30
			// draws gives 3.9). tau(n-1) is about 0 for any series.
			short = append(short, tr)
			continue
		}
		if !isFinite(tau) || tau <= 0 {
			bad = append(bad, tr)
			continue
		}
		taus = append(taus, tau)
		if len(acfSum) < len(rho) {
			acfSum = append(acfSum, make([]float64, len(rho)-len(acfSum))...)
		}
		for i, v := range rho {
			acfSum[i] += v
		}
	}
	res.TauInt = math.NaN()
	if len(taus) > 0 {
		res.TauInt = 0
		for _, v := range taus {
			res.TauInt += v / float64(len(taus))
		}
		for i := range acfSum {
			acfSum[i] /= float64(len(taus))
		}
	}
	var why []string
	if len(flat) > 0 {
		why = append(why, fmt.Sprintf("constant energy after burn-in in trial(s) %s", joinInts(flat)))
	}
	if len(short) > 0 {
		why = append(why, fmt.Sprintf("trace shorter than 10 Sokal windows (%d tau_int) in trial(s) %s", 10*diag.SokalC, joinInts(short)))
	}
	if len(bad) > 0 {
		why = append(why, fmt.Sprintf("no positive tau_int in trial(s) %s", joinInts(bad)))
	}
	if len(few) > 0 {
		why = append(why, fmt.Sprintf("fewer than %d draws after burn-in in trial(s) %s", minTauDraws, joinInts(few)))
	}
	switch {
	case len(taus) == 0 && len(why) == 0:
		why = append(why, "no trials")
	case len(taus) > 0 && len(why) > 0:
		why = append(why, fmt.Sprintf("mean of the other %d trial(s)", len(taus)))
	}
	res.TauIntNote = strings.Join(why, "; ")
	res.ACF = acfSum
}

// work sets what the trials cost and did: CPU and wall time (wall: the
// sampler's wall time in this process, 0 to sum the trials'), ESS per
// CPU-second, acceptance, flips, the settings and the best tuning reward.
func (res *Result) work(recs []*TrialRecord, wall float64) {
	var cpu, twall float64
	var flips, prop, acc int64
	flipsOK := true
	for _, r := range recs {
		cpu += r.CPUSeconds
		twall += r.WallSeconds
		flipsOK = flipsOK && r.Flips >= 0
		flips += r.Flips
		prop += r.Proposed
		acc += r.Accepted
		if r.Tune != nil && len(r.Tune.Rewards) > 0 {
			b := slices.Max(r.Tune.Rewards)
			if res.BestTuningReward == nil || b > *res.BestTuningReward {
				res.BestTuningReward = &b
			}
		}
	}
	res.CPUSeconds = cpu
	res.WallSeconds = wall
	if wall == 0 {
		res.WallSeconds = twall
	}
	res.ESSPerCPUSecond = math.NaN()
	switch {
	case !isFinite(res.ESS):
		res.ESSPerCPUSecondNote = "no ESS: " + res.ESSNote
	case !(cpu > 0):
		res.ESSPerCPUSecondNote = "no CPU time recorded"
	default:
		res.ESSPerCPUSecond = res.ESS / cpu
	}
	if prop > 0 {
		a := float64(acc) / float64(prop)
		res.AcceptanceRate = &a
	}
	res.sweeps(recs, flipsOK, flips)
	if flipsOK && len(recs) > 0 {
		res.Flips = &flips
		fps := float64(flips) / float64(res.TotalSteps)
		res.FlipsPerStep = &fps
		switch {
		case flips == 0:
			res.NsPerFlipNote = "no flips"
		case !(cpu > 0):
			res.NsPerFlipNote = "no CPU time recorded"
		default:
			ns := cpu * 1e9 / float64(flips)
			res.NsPerFlip = &ns
		}
	}
	if len(recs) > 0 && recs[0].Params != "" {
		p := recs[0].Params
		res.Params = &p
	}
}

// sweeps sets res.Sweeps, the work of the trials recs in sweep-equivalents
// (see Result.Sweeps); flips is their flips, when every trial counts them
// (flipsOK).
func (res *Result) sweeps(recs []*TrialRecord, flipsOK bool, flips int64) {
	res.Sweeps = math.NaN()
	if len(recs) == 0 {
		res.SweepsNote = "no trials"
		return
	}
	n := 0
	for _, r := range recs {
		if r.Observables == nil || n != 0 && r.Observables.Spins != n {
			res.SweepsNote = "the trials do not record their model's number of spins (folders written before sardonics recorded it)"
			return
		}
		n = r.Observables.Spins
	}
	if flipsOK {
		res.Sweeps = float64(flips) / float64(n)
		return
	}
	// Each step resamples every spin of every chain.
	chains := 0.0
	for _, r := range recs {
		c := 1
		if r.Replica != nil {
			c = len(r.Replica.Ladder) * max(1, r.Replica.Sets)
		}
		chains += float64(c) * float64(len(r.Energies))
	}
	res.Sweeps = chains
	res.SweepsNote = "no flips counted: each step resamples every spin, so a step of every chain (every replica) is one sweep"
}

// pooledSD is the standard deviation (denominator N-1) of all kept rows
// about their pooled mean; NaN for fewer than 2 rows.
func pooledSD(kept [][]float64) float64 {
	mu := pooledMean(kept)
	ss, n := 0.0, 0
	for _, x := range kept {
		for _, v := range x {
			ss += (v - mu) * (v - mu)
			n++
		}
	}
	if n < 2 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(n-1))
}

func sampleVariance(x []float64) float64 {
	mu := 0.0
	for _, v := range x {
		mu += v
	}
	mu /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mu) * (v - mu)
	}
	return ss / float64(len(x)-1)
}

func joinInts(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// pooledMean is the mean of all kept rows, summed in a fixed order.
func pooledMean(kept [][]float64) float64 {
	var s meanSum
	for _, x := range kept {
		for _, v := range x {
			s.add(v)
		}
	}
	return s.mean()
}

// meanSum is a mean summed in a fixed order by Neumaier's summation, which
// keeps it exact to rounding.
type meanSum struct {
	s fsum.Neumaier
	n int
}

func (a *meanSum) add(v float64) { a.s.Add(v); a.n++ }

// mean is the mean of the values added, NaN for none.
func (a *meanSum) mean() float64 {
	if a.n == 0 {
		return math.NaN()
	}
	return a.s.Sum() / float64(a.n)
}

// rows is an array of rows as long as kept's, back to back in one
// allocation.
func rows(kept [][]float64) [][]float64 {
	n := 0
	for _, x := range kept {
		n += len(x)
	}
	all := make([]float64, n)
	out := make([][]float64, len(kept))
	for i, x := range kept {
		out[i], all = all[:len(x)], all[len(x):]
	}
	return out
}

// WriteTrial writes a trial's folder: energy.csv, magnetization.csv,
// stats.json and, if any, states.npy and samples.npz.
func WriteTrial(dir string, r *TrialRecord) error {
	td := TrialDir(dir, r.Sampler, r.Trial)
	if len(r.States) > 0 {
		if err := model.WriteFileMkdir(filepath.Join(td, "states.npy"), npyUint8(r.States)); err != nil {
			return err
		}
		if r.Samples != nil {
			b, err := samplesNPZ(r.Samples, r.States)
			if err != nil {
				return err
			}
			if err := model.WriteFileMkdir(filepath.Join(td, "samples.npz"), b); err != nil {
				return err
			}
		}
	}
	if err := writeColumn(filepath.Join(td, "energy.csv"), "step,energy", r.Energies); err != nil {
		return err
	}
	if r.Marginals != nil && r.Marginals.Mean != nil {
		if err := writeMarginals(td, r.Marginals); err != nil {
			return err
		}
	}
	if len(r.Magnetization) > 0 {
		if err := writeIntColumn(filepath.Join(td, "magnetization.csv"), "step,magnetization", r.Magnetization); err != nil {
			return err
		}
	}
	if err := writeReplicaFiles(td, r); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return model.WriteFileMkdir(filepath.Join(td, "stats.json"), append(js, '\n'))
}

// TrialDir is the folder of trial t of sampler name.
func TrialDir(dir, name string, t int) string {
	return filepath.Join(dir, name, fmt.Sprintf("trial-%d", t))
}

// npyUint8 encodes rows of bits as a NumPy .npy array (uint8, C order).
func npyUint8(rows [][]uint8) []byte {
	b := model.NPYHeader("|u1", len(rows), len(rows[0]))
	for _, r := range rows {
		b = append(b, r...)
	}
	return b
}

// ReadTrial reads a trial folder written by WriteTrial.
func ReadTrial(td string) (*TrialRecord, error) {
	js, err := os.ReadFile(filepath.Join(td, "stats.json"))
	if err != nil {
		return nil, err
	}
	r := &TrialRecord{}
	if err := json.Unmarshal(js, r); err != nil {
		return nil, fmt.Errorf("%s: %v (expected a stats.json written by sardonics)", filepath.Join(td, "stats.json"), err)
	}
	if r.Energies, err = readColumn(filepath.Join(td, "energy.csv"), "step,energy"); err != nil {
		return nil, err
	}
	if r.Marginals != nil {
		if err := readMarginals(td, r.Marginals); err != nil {
			return nil, err
		}
	}
	// Folders of versions before it have no magnetization.csv.
	if r.Magnetization, err = readIntColumn(filepath.Join(td, "magnetization.csv"), "step,magnetization"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return r, readReplicaFiles(td, r)
}

// writeColumn writes a CSV of a header "INDEX,NAME" and one row per value,
// numbered from 1, the values in Go's shortest round-trip form.
func writeColumn(path, header string, x []float64) error {
	return writeRows(path, header, len(x), func(b []byte, i int) []byte {
		return strconv.AppendFloat(b, x[i], 'g', -1, 64)
	})
}

// writeIntColumn is writeColumn for integers.
func writeIntColumn(path, header string, x []int32) error {
	return writeRows(path, header, len(x), func(b []byte, i int) []byte {
		return strconv.AppendInt(b, int64(x[i]), 10)
	})
}

// writeRows streams a CSV of header and n rows "i+1,VALUE", VALUE appended
// by value, without holding the file in memory (a trace of 10^6 values
// would take about 20 MB as text).
func writeRows(path, header string, n int, value func(b []byte, i int) []byte) error {
	return model.WriteStreamMkdir(path, func(w *bufio.Writer) error {
		b := append(make([]byte, 0, 64), header...)
		b = append(b, '\n')
		for i := range n {
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, ',')
			b = value(b, i)
			b = append(b, '\n')
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
		_, err := w.Write(b)
		return err
	})
}

// readIntColumn reads what writeIntColumn wrote.
func readIntColumn(path, header string) ([]int32, error) {
	x, err := readColumn(path, header)
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(x))
	for i, v := range x {
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			return nil, fmt.Errorf("%s:%d: %v is not an integer (expected %s)", path, i+2, v, header)
		}
		out[i] = int32(v)
	}
	return out, nil
}

// readColumn reads what writeColumn wrote.
func readColumn(path, header string) ([]float64, error) {
	csv, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(csv), "\n"), "\n")
	if len(lines) == 0 || lines[0] != header {
		return nil, fmt.Errorf("%s:1: missing header (expected %s)", path, header)
	}
	var out []float64
	for i, l := range lines[1:] {
		_, v, ok := strings.Cut(l, ",")
		x, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: bad row %q (expected %s)", path, i+2, l, header)
		}
		out = append(out, x)
	}
	return out, nil
}

// WriteSummary writes summary.json, run.json, the figures and, after
// tuning, tuning.csv.
func WriteSummary(dir string, meta Meta, machine string, results []*Result, recs map[string][]*TrialRecord) (*Summary, error) {
	return WriteOutputs(dir, meta, machine, results, recs, true)
}

// WriteOutputs is WriteSummary with the figures (acf.png, trace.png,
// rewards.png) drawn only if figures is true; the data files are written
// either way.
func WriteOutputs(dir string, meta Meta, machine string, results []*Result, recs map[string][]*TrialRecord, figures bool) (*Summary, error) {
	s := &Summary{Beta: meta.Beta, Seed: meta.Seed, Machine: trialMachines(recs, machine), Results: results, Warnings: Warnings(results)}
	s.Model.Spec, s.Model.Variables, s.Model.Interactions = meta.Spec, meta.Variables, meta.Interactions
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := model.WriteFileMkdir(filepath.Join(dir, "summary.json"), append(js, '\n')); err != nil {
		return nil, err
	}
	mj, _ := json.MarshalIndent(meta, "", "  ")
	if err := model.WriteFileMkdir(filepath.Join(dir, "run.json"), append(mj, '\n')); err != nil {
		return nil, err
	}
	if err := writePooledMarginals(dir, results); err != nil {
		return nil, err
	}
	if !figures {
		return s, writeTuning(dir, recs)
	}
	return s, DrawFigures(dir, meta, results, recs)
}

// writeTuning writes tuning.csv for the first sampler with a tuning
// history, as DrawFigures does alongside rewards.png.
func writeTuning(dir string, recs map[string][]*TrialRecord) error {
	for _, rs := range recs {
		for _, r := range rs {
			if r.Tune != nil && len(r.Tune.Rewards) > 0 {
				return WriteTuningCSV(filepath.Join(dir, "tuning.csv"), rs)
			}
		}
	}
	return nil
}

// DrawFigures draws acf.png, trace.png and, after tuning, rewards.png and
// tuning.csv from a run's results and trial records.
func DrawFigures(dir string, meta Meta, results []*Result, recs map[string][]*TrialRecord) error {
	title := fmt.Sprintf("%s, beta = %.4g", meta.Spec, meta.Beta)
	var traces []report.Series
	acfs, xlabel := acfSeries(results)
	for _, r := range results {
		if rs := recs[r.Sampler]; len(rs) > 0 {
			var x, y []float64
			// The kept steps only, as the paper's figures: the burn-in
			// transient would flatten the stationary fluctuations.
			for i := min(rs[0].burnIn(meta.BurnIn), len(rs[0].Energies)-1); i < len(rs[0].Energies); i += 5 {
				x = append(x, float64(i+1))
				y = append(y, rs[0].Energies[i])
			}
			traces = append(traces, report.Series{Name: fmt.Sprintf("%s (trial %d)", r.Sampler, rs[0].Trial), X: x, Y: y})
		}
	}
	if err := report.PlotACF(filepath.Join(dir, "acf.png"), "Energy autocorrelation: "+title, xlabel, acfs); err != nil {
		return err
	}
	if err := report.PlotTraces(filepath.Join(dir, "trace.png"), fmt.Sprintf("Energy traces after burn-in (every 5th step): %s", title), traces); err != nil {
		return err
	}
	if err := drawReplicaFigures(dir, title, meta.BurnIn, results, recs); err != nil {
		return err
	}
	for _, rs := range recs {
		for _, r := range rs {
			if r.Tune != nil && len(r.Tune.Rewards) > 0 {
				if err := report.PlotRewards(filepath.Join(dir, "rewards.png"), fmt.Sprintf("Tuning rewards (trial %d): %s", r.Trial, title), r.Tune.Rewards); err != nil {
					return err
				}
				if err := WriteTuningCSV(filepath.Join(dir, "tuning.csv"), rs); err != nil {
					return err
				}
				return nil
			}
		}
	}
	return nil
}

// acfSeries is each sampler's ACF against its lag in CPU milliseconds (a
// step's CPU time: the trials' CPU over their steps), so that samplers
// whose steps cost differently compare, the step's cost in the legend; in
// steps when a sampler has no CPU time recorded.
func acfSeries(results []*Result) ([]report.Series, string) {
	perStep := make([]float64, len(results))
	for i, r := range results {
		if n := float64(r.TotalSteps); r.CPUSeconds > 0 && n > 0 {
			perStep[i] = 1e3 * r.CPUSeconds / n
		} else {
			perStep = nil
			break
		}
	}
	var out []report.Series
	for i, r := range results {
		s := report.Series{Name: r.Sampler, Y: r.ACF}
		if perStep != nil {
			s.X = make([]float64, len(r.ACF))
			for k := range s.X {
				s.X[k] = float64(k) * perStep[i]
			}
			s.Name = fmt.Sprintf("%s (a step: %.3g ms)", r.Sampler, perStep[i])
		}
		out = append(out, s)
	}
	if perStep == nil {
		return out, "lag (steps)"
	}
	return out, "lag (CPU milliseconds of one trial)"
}

// WriteTuningCSV writes every trial's (theta_i, reward_i) history.
func WriteTuningCSV(path string, rs []*TrialRecord) error {
	var b bytes.Buffer
	b.WriteString("trial,iteration,theta,reward\n")
	for _, r := range rs {
		if r.Tune == nil {
			continue
		}
		for i, rw := range r.Tune.Rewards {
			fmt.Fprintf(&b, "%d,%d,%q,%s\n", r.Trial, i, r.Tune.Thetas[i], strconv.FormatFloat(rw, 'g', -1, 64))
		}
	}
	return model.WriteFileMkdir(path, b.Bytes())
}

// Table renders results as a fixed-width text table; a value that cannot be
// estimated shows as n/a. The last columns are the work of all trials
// together: steps, flips per step and sweep-equivalents (Result.Sweeps),
// so that samplers given equal CPU (--budget) show what each did with it.
func Table(results []*Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %12s %10s %9s %10s %10s %7s %9s %11s %7s %10s %10s %10s\n", "sampler", "E mean", "stderr", "tau_int", "ESS bulk", "ESS tail", "R-hat", "cpu s", "ESS/cpu-s", "accept", "steps", "flips/step", "sweeps")
	for _, r := range results {
		rh, acc, fps := "n/a", "-", "-"
		if r.Rhat != nil {
			rh = fmt.Sprintf("%.3f", *r.Rhat)
		}
		if r.AcceptanceRate != nil {
			acc = fmt.Sprintf("%.3f", *r.AcceptanceRate)
		}
		if r.FlipsPerStep != nil {
			fps = fmt.Sprintf("%.1f", *r.FlipsPerStep)
		}
		fmt.Fprintf(&b, "%-11s %12s %10s %9s %10s %10s %7s %9.3g %11s %7s %10s %10s %10s\n", r.Sampler, meanText(r.EnergyMean, r.EnergyStderr), num("%.3g", r.EnergyStderr),
			num("%.3g", r.TauInt), num("%.4g", r.ESS), num("%.4g", r.ESSTail), rh, r.CPUSeconds, num("%.4g", r.ESSPerCPUSecond), acc, count(r.TotalSteps), fps, num("%.4g", r.Sweeps))
	}
	return b.String()
}

// count is n in full below ten million, else to 3 significant digits.
func count(n int64) string {
	if n < 1e7 {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprintf("%.3g", float64(n))
}

// num formats x, or "n/a" when it is NaN or infinite.
// meanText is the mean energy to the second significant digit of its
// standard error (so that at |E| ~ 1e12 a difference of units shows), or
// to 5 significant digits without one.
func meanText(mean, se float64) string {
	if !isFinite(mean) {
		return "n/a"
	}
	if !isFinite(se) || se <= 0 {
		return fmt.Sprintf("%.5g", mean)
	}
	dec := min(12, max(0, 1-int(math.Floor(math.Log10(se)))))
	return strconv.FormatFloat(mean, 'f', dec, 64)
}

func num(format string, x float64) string {
	if !isFinite(x) {
		return "n/a"
	}
	return fmt.Sprintf(format, x)
}

// SortedTrials returns records sorted by trial id.
func SortedTrials(rs []*TrialRecord) []*TrialRecord {
	out := append([]*TrialRecord(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Trial < out[j].Trial })
	return out
}

// BudgetNote is what sample and report print after the tables of a
// --budget run: each sampler's trials' steps, burn-in and CPU, and that
// the run repeats exactly only with --steps and --burn; "" for a run of
// --steps.
func BudgetNote(results []*Result) string {
	var b strings.Builder
	for _, r := range results {
		bs := r.Budget
		if bs == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\n--budget: %.4g s of thread CPU per trial, burn-in the steps of its first %g%%; per trial:\n", bs.CPUSecondsPerTrial, 100*bs.BurnFraction)
		}
		cpu := make([]string, len(bs.TrialCPUSeconds))
		for i, c := range bs.TrialCPUSeconds {
			cpu[i] = fmt.Sprintf("%.4g", c)
		}
		fmt.Fprintf(&b, "%-11s steps %s; burn-in %s; cpu s %s\n", r.Sampler, joinInts(bs.TrialSteps), joinInts(bs.TrialBurnIn), strings.Join(cpu, ", "))
		if len(bs.StepCapped) > 0 {
			fmt.Fprintf(&b, "%-11s trial(s) %s stopped at the step bound before their budget (see their stats.json)\n", r.Sampler, joinInts(bs.StepCapped))
		}
	}
	if b.Len() > 0 {
		b.WriteString("A --budget run is not repeatable bit for bit (a step's CPU differs between machines and runs); summary.json's budget.reproduce gives the --steps and --burn that repeat each sampler's chains exactly.\n")
	}
	return b.String()
}
