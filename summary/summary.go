package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"sardonics/diag"
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
	// TrialESS is the energy's ESS that the spread of the trials' means
	// implies, with its 90% interval (see Estimate.TrialESS).
	TrialESS *diag.Spread `json:"ess_from_trial_means,omitempty"`
	// Rhat is the rank-normalized split R-hat (max of bulk and folded).
	Rhat        *float64 `json:"rhat"`
	RhatNote    string   `json:"rhat_note,omitempty"`
	WallSeconds float64  `json:"wall_seconds"`
	CPUSeconds  float64  `json:"cpu_seconds"` // summed over the trials
	// WaitCPUSeconds is the part of CPUSeconds the trials' threads spent
	// waiting for each other (replica workers, engine sections: spinning,
	// parking and waking) rather than computing.
	WaitCPUSeconds float64 `json:"wait_cpu_seconds"`
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
	// ACFLagSteps is the steps between the lags of ACF (the pooled draws'
	// interval, Thinning.Every).
	ACFLagSteps int `json:"acf_lag_steps"`
	// Thinning says which draws the statistics come from.
	Thinning *ThinSummary `json:"thinning,omitempty"`
	// Replica summarizes replica exchange (--replicas).
	Replica *ReplicaSummary `json:"replica,omitempty"`
	// Budget is a --budget run's: each trial's share of thread CPU, the
	// steps it made and discarded, and how to repeat it exactly (nil: a
	// run of --steps).
	Budget *BudgetSummary `json:"budget,omitempty"`
	// Lowest is the lowest energy any trial reported at any step (the
	// burn-in's included), where it was first seen and how many trials
	// reached it.
	Lowest *LowestSummary `json:"lowest,omitempty"`
	// EnergyLevels is how the kept draws spread over distinct energies,
	// with a note when they concentrate on a few.
	EnergyLevels     *Levels `json:"energy_levels,omitempty"`
	EnergyLevelsNote string  `json:"energy_levels_note,omitempty"`
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
	Warnings []string `json:"warnings"`
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

// SpreadQuantile is the quantile of the ESS that the spread of the
// trials' means implies above which a bulk ESS is called overstated: a
// correct bulk ESS exceeds it in one run in a thousand.
const SpreadQuantile = 0.999

// overstated is a warning (or "") when bulk, the bulk ESS of what, is
// above the SpreadQuantile bound of the trials' spread.
func overstated(what string, bulk float64, s *diag.Spread) string {
	if s == nil || !isFinite(bulk) {
		return ""
	}
	if u := s.Upper(SpreadQuantile); bulk > u {
		return fmt.Sprintf("the bulk ESS of %s (%.4g) is above what the spread of its %d trials' means allows (%.4g; at most %.4g at %g): its autocorrelation has a slow tail the bulk ESS does not see, so its error is understated; ess_from_trial_means in summary.json is the better estimate",
			what, bulk, s.Chains, s.ESS, u, SpreadQuantile)
	}
	return ""
}

// Warnings says, for each result whose statistics cannot be trusted, which
// sampler, what was measured and what to do.
func Warnings(results []*Result) []string {
	out := []string{} // an empty list in summary.json when there are none
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
		// Where the trials disagree (R-hat) the warning above says enough.
		if w := overstated("the energy", r.ESS, r.TrialESS); w != "" && !drift && r.Rhat != nil && *r.Rhat <= MaxRhat {
			out = append(out, fmt.Sprintf("sampler %s: %s; %s", r.Sampler, w, remedy))
		}
		if rp := r.Replica; rp != nil && rp.Q2 != nil && rp.Q2.Rhat <= MaxRhat {
			if w := overstated("q^2", rp.Q2.ESS, rp.Q2.TrialESS); w != "" {
				out = append(out, fmt.Sprintf("sampler %s: %s; %s", r.Sampler, w, remedy))
			}
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

// Summarize computes a sampler's result from its trial records. wall is the
// elapsed time of the sampler's phase (0: sum of the trials' wall times).
// The trials are the chains of the pooled diagnostics (diag.Diagnose) over
// their energies after burn-in; a single trial is split in halves like every
// chain. Values that cannot be estimated are NaN with a note (see Result).
// Trials of a --budget run (TrialRecord.Budget) each have their own steps
// and burn-in, which replace steps and burn (see budgetPooling).
func Summarize(name string, recs []*TrialRecord, steps, burn int, wall float64) *Result {
	res := &Result{Sampler: name, Trials: len(recs), Steps: steps, BurnIn: burn, Replica: summarizeReplica(recs, burn)}
	p := newPool(recs)
	kept := make([][]float64, len(recs))
	for i, r := range recs {
		kept[i] = pooledOf(p, i, r, burn, r.Energies)
		res.TrialIDs = append(res.TrialIDs, r.Trial)
		res.TotalSteps += int64(r.StepsMade())
	}
	res.budget(recs)
	res.Lowest = summarizeLowest(recs)
	// The diagnostics of long traces hold arrays of their length: the
	// energy's and the observables', then the ACF's at twice the length
	// (its FFT plan and arrays: 80 bytes a draw). Garbage is collected and
	// given back to the system before each of these phases (the caller's
	// too, such as the model), and diag's arrays are let go after each,
	// so that the summary's peak is its largest phase's rather than their
	// sum, or twice that before a collection comes due.
	var nd int64 // the pooled draws: the summary's arrays are of their length
	for _, x := range kept {
		nd += int64(len(x))
	}
	collect(nd)
	res.energy(recs, p, kept)
	res.EnergyLevels = levelsOf(kept)
	res.EnergyLevelsNote = res.EnergyLevels.Concentrated()
	res.observables(recs, p, kept)
	if res.Replica != nil {
		res.Replica.overlapStats(recs, p, burn, kept)
		res.Replica.rungStats(recs)
	}
	res.trend(kept) // after the others: its transforms are a quarter as long
	res.marginals(recs)
	collect(nd)
	res.autocorrelation(recs, kept)
	tauKept := res.TauInt
	res.thinning(recs, p, kept, tauKept)
	res.scaleToSteps(p)
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
		b.TrialSteps = append(b.TrialSteps, r.StepsMade())
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

// SummarizeAll is Summarize of each sampler of names (recs[name], wall[name]),
// threads of them at once (at least 1): each sampler's statistics depend
// only on its own trials, so the results are those of one after another.
func SummarizeAll(names []string, recs map[string][]*TrialRecord, steps, burn int, wall map[string]float64, threads int) []*Result {
	out := make([]*Result, len(names))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(threads, len(names))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = Summarize(names[i], recs[names[i]], steps, burn, wall[names[i]])
			}
		}()
	}
	for i := range names {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}
