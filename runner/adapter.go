package runner

import (
	"encoding/json"
	"errors"
	"fmt"

	"sardonics/replica"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/summary"
)

// An adapter changes a trial's chain, or measures it, while the trial
// runs, and owns its state: the one seam through which the trial adapts.
// The trial asks its adapters (adaptersFor: which ones the sampler's Kind
// and the run call for) to set up every chain it builds, lets one that
// drives run the next steps itself, tells each after every step it made
// itself, has each record what it did, and saves each one's state in its
// checkpoint (Marshal/Unmarshal: nil when there is nothing to save).
//
// A replica-exchange chain's own adaptation (an adaptive ladder, its cycle
// tuner) is the chain's state, saved with it: its adapter only measures
// what the tuning cost.
type adapter interface {
	// configure sets up ch, which the trial has just built (rebuilt: from
	// a chain it released, at a block boundary).
	configure(ch sampler.Chain, rebuilt bool) error
	// drives reports whether the adapter runs the trial's next steps.
	drives() bool
	// advance runs one of its iterations on ch, calling step for every
	// step the trial is to record.
	advance(ch sampler.Chain, rec *summary.TrialRecord, step func()) error
	// after follows each step the trial made itself (at, its schedule).
	after(ch sampler.Chain, at stepAt, rec *summary.TrialRecord) error
	// finish records what the adapter did in rec, whose CPUSeconds are
	// the trial's.
	finish(rec *summary.TrialRecord)
	json.Marshaler
	json.Unmarshaler
}

// stepAt is where a trial is: its steps so far, its adaptation and
// burn-in (unknownSteps: not fixed yet) and its CPU.
type stepAt struct {
	steps, adapt, burn int
	cpu                func() float64
}

// adaptersFor are trial chain name's adapters in cfg's run: the kernel
// tuner of a Tunable sampler (cfg.Tune, or cfg.SAW's fixed kernels), the
// cycle choice of a single chain with a default cycle (TuneCycles), or
// the measure of a ladder's cycle tuning; seed and tn derive the tuner's
// stream.
func adaptersFor(cfg *Config, name string, tn int) ([]adapter, error) {
	k := kindOf(name)
	var as []adapter
	if k.Tunable {
		kt := &kernelTuner{thetas: cfg.SAW.Thetas}
		if cfg.Tune != nil {
			s, err := cfg.Tune.New(TunerStream(cfg.Seed, tn))
			if err != nil {
				return nil, err
			}
			kt.session = s
		}
		as = append(as, kt)
	}
	if rc := cfg.Replicas; rc.TuneCycles && k.DefaultCycle != nil {
		if rc.On() {
			as = append(as, &tuningCPU{at: [2]float64{-1, -1}})
		} else {
			_, kc := k.DefaultCycle(cfg.Model, cfg.SAW)
			as = append(as, &cycleChoice{beta: cfg.Beta, n: cfg.Model.Variables(),
				tc: replica.TuneConfig{Candidates: replica.CandidateCycles(kc), Seconds: rc.TuneSeconds,
					Costs: replica.DefaultCycleCosts, Drop: replica.DefaultDrop}})
		}
	}
	return as, nil
}

// kernelTuner holds a Tunable chain's kernels (saw.Theta) and, with
// --tune, the Bayesian-optimization session that chooses them during its
// first steps (tune.Session): while it runs it drives the trial, one
// iteration at a time, and once it is done its policy is the chain's.
type kernelTuner struct {
	thetas  []saw.Theta
	session TuneSession // nil: no tuning
	done    bool        // the session has finished (or a restored trial's had)
	tunable bool        // the current chain's kernels can be set
}

func (a *kernelTuner) configure(ch sampler.Chain, rebuilt bool) error {
	if rebuilt && a.tuning() {
		a.thetas = a.session.Current()
	}
	sc, ok := ch.(saw.Tunable)
	a.tunable = ok
	if ok && len(a.thetas) > 0 {
		return sc.SetThetas(a.thetas)
	}
	return nil
}

// tuning reports whether the session is still choosing the kernels.
func (a *kernelTuner) tuning() bool { return a.session != nil && !a.done && !a.session.Done() }

func (a *kernelTuner) drives() bool { return a.tunable && a.tuning() }

func (a *kernelTuner) advance(ch sampler.Chain, rec *summary.TrialRecord, step func()) error {
	sc, ok := ch.(saw.Tunable)
	if !ok {
		return errors.New("the kernel tuner needs a chain whose kernels can be set")
	}
	if err := a.session.Iterate(sc, step); err != nil {
		return err
	}
	if !a.session.Done() {
		return nil
	}
	tr, err := a.session.Finish(sc)
	if err != nil {
		return err
	}
	rec.Tune, a.thetas, a.done = tr, tr.Policy, true
	return nil
}

func (a *kernelTuner) after(sampler.Chain, stepAt, *summary.TrialRecord) error { return nil }

func (a *kernelTuner) finish(rec *summary.TrialRecord) {
	rec.Params = describeThetas(a.thetas) // the policy, once tuning finished
	if rec.Tune != nil {
		rec.Tune.Policy = a.thetas
	}
}

// kernelState is a kernelTuner's checkpoint: its kernels and, mid-tuning,
// the session's state.
type kernelState struct {
	Thetas []string        `json:"thetas,omitempty"`
	Tuning json.RawMessage `json:"tuning,omitempty"`
}

func (a *kernelTuner) MarshalJSON() ([]byte, error) {
	var s kernelState
	for _, th := range a.thetas {
		s.Thetas = append(s.Thetas, th.String())
	}
	if a.tuning() {
		var err error
		if s.Tuning, err = json.Marshal(a.session); err != nil {
			return nil, err
		}
	}
	return json.Marshal(s)
}

func (a *kernelTuner) UnmarshalJSON(b []byte) error {
	var s kernelState
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	a.thetas = nil
	for _, x := range s.Thetas {
		th, err := saw.ParseTheta(x)
		if err != nil {
			return err
		}
		a.thetas = append(a.thetas, th)
	}
	switch {
	case len(s.Tuning) > 0 && a.session == nil:
		return errors.New("checkpoint is mid-tuning but this run does not tune")
	case len(s.Tuning) > 0:
		if err := a.session.UnmarshalJSON(s.Tuning); err != nil {
			return fmt.Errorf("tuning state: %v", err)
		}
	default:
		a.done = true
	}
	return nil
}

// cycleChoice chooses a single hybrid chain's cycle (replica.TuneChain)
// after the step that completes half the burn-in (the adaptation: in a
// --budget run, the steps of the first half of its share of CPU), so that
// the chain has relaxed from its starting state; the tuning's steps are
// not the chain's. From then on the chain runs the chosen cycle, which its
// state saves; the choice is in the trial's record (stats.json "cycles"),
// which is all the adapter's state.
type cycleChoice struct {
	beta float64
	n    int
	tc   replica.TuneConfig
}

func (*cycleChoice) configure(sampler.Chain, bool) error { return nil }
func (*cycleChoice) drives() bool                        { return false }
func (*cycleChoice) advance(sampler.Chain, *summary.TrialRecord, func()) error {
	return errors.New("the cycle choice never drives a trial")
}

func (a *cycleChoice) after(ch sampler.Chain, at stepAt, rec *summary.TrialRecord) error {
	h, ok := ch.(replica.Cycler)
	if !ok || rec.Cycles != nil || at.steps < at.adapt || at.steps >= at.burn {
		return nil
	}
	res, err := replica.TuneChain(h, a.beta, a.n, a.tc)
	rec.Cycles = res
	return err
}

func (*cycleChoice) finish(*summary.TrialRecord)  {}
func (*cycleChoice) MarshalJSON() ([]byte, error) { return []byte("null"), nil }
func (*cycleChoice) UnmarshalJSON([]byte) error   { return nil }

// tuningCPU measures the trial's CPU (every thread, as its budget) from
// the step that began a replica-exchange chain's cycle tuning to the one
// that ended it, to within a swap round (the chain's tuning state changes
// as a round begins, and a step's CPU is read after it): the chain's
// modelled costs are deterministic, the CPU is not, so the trial keeps it,
// in its checkpoint too. at is the CPU when the tuning began and what it
// spent (-1: not yet).
type tuningCPU struct{ at [2]float64 }

func (*tuningCPU) configure(sampler.Chain, bool) error { return nil }
func (*tuningCPU) drives() bool                        { return false }
func (*tuningCPU) advance(sampler.Chain, *summary.TrialRecord, func()) error {
	return errors.New("the tuning's CPU measure never drives a trial")
}

func (a *tuningCPU) after(ch sampler.Chain, at stepAt, _ *summary.TrialRecord) error {
	l, ok := ch.(replica.Ladder)
	if !ok {
		return nil
	}
	switch l.TunePhase() {
	case replica.TuneRunning:
		if a.at[0] < 0 {
			a.at[0] = at.cpu()
		}
	case replica.TuneDone:
		if a.at[1] < 0 {
			c := at.cpu()
			if a.at[0] < 0 {
				a.at[0] = c
			}
			a.at[1] = c - a.at[0]
		}
	}
	return nil
}

// finish puts the tuning's CPU and its share of the trial's into the
// record (stats.json replica.cycles).
func (a *tuningCPU) finish(rec *summary.TrialRecord) {
	r := rec.Replica
	if r == nil || r.Cycles == nil || a.at[1] < 0 {
		return
	}
	r.Cycles.CPUSeconds = a.at[1]
	if rec.CPUSeconds > 0 {
		r.Cycles.CPUShare = a.at[1] / rec.CPUSeconds
	}
}

func (a *tuningCPU) MarshalJSON() ([]byte, error) {
	if a.at[0] < 0 {
		return []byte("null"), nil
	}
	return json.Marshal(a.at)
}

func (a *tuningCPU) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &a.at)
}
