package summary

import (
	"fmt"

	"sardonics/draws"
	"sardonics/replica"
	"sardonics/saw"
)

// TuneRecord is what a trial's adaptation produced.
type TuneRecord struct {
	Thetas  []string    `json:"thetas"`  // setting tried at each iteration
	Rewards []float64   `json:"rewards"` // reward of each iteration
	Policy  []saw.Theta `json:"-"`
	Steps   int         `json:"steps"`            // chain steps spent adapting
	Reward  string      `json:"reward,omitempty"` // the reward's name (tune.Config.Reward)
	// TunerCPUSeconds is the CPU time of the tuner's own work (surrogate,
	// acquisition, rewards, policy), measured on the trial's thread; the
	// chain steps it ran are not in it. Both are in the trial's cpu_seconds.
	TunerCPUSeconds float64 `json:"tuner_cpu_seconds"`
}

// TrialRecord is everything a trial leaves behind; summaries are computed
// from these alone.
type TrialRecord struct {
	Sampler string `json:"sampler"`
	Trial   int    `json:"trial"`
	// Steps is the steps the trial made, its burn-in included (0 in
	// folders of versions before it: every step is in Energies).
	Steps int `json:"steps,omitempty"`
	// Trace says after which steps the kept draws (Energies,
	// Magnetization, Overlap) were taken: the burn-in's, then those after
	// the burn-in (nil in folders of versions before it: after every
	// step). See package draws.
	Trace *Trace `json:"trace,omitempty"`
	// Moments are the exact sums of the observables over every step after
	// the burn-in, kept or not (nil in folders of versions before them:
	// the kept draws are every step).
	Moments  *Moments  `json:"moments,omitempty"`
	Energies []float64 `json:"-"` // the energy after each kept step
	// Magnetization is M = sum_i s_i after each kept step
	// (magnetization.csv); nil in folders of versions before it.
	Magnetization []int32   `json:"-"`
	States        [][]uint8 `json:"-"` // kept states, with --save-states
	// StateEnergies is the energy of each row of States.
	StateEnergies []float64 `json:"-"`
	// Samples are States as distinct states with energies and counts
	// (samples.npz).
	Samples *SampleSet `json:"-"`
	// SaveEvery is the thinning of the saved states (--save-every: one
	// state in SaveEvery steps after the burn-in); SavedStates and
	// DistinctStates count the rows of states.npy and samples.npz.
	SaveEvery      int     `json:"save_every,omitempty"`
	SavedStates    int     `json:"saved_states,omitempty"`
	DistinctStates int     `json:"distinct_states,omitempty"`
	WallSeconds    float64 `json:"wall_seconds"`
	CPUSeconds     float64 `json:"cpu_seconds"`
	// WaitCPUSeconds is the part of CPUSeconds the trial's threads spent
	// waiting for each other (spinning, parking, waking) rather than
	// computing; 0 for chains on one thread.
	WaitCPUSeconds float64     `json:"wait_cpu_seconds"`
	Flips          int64       `json:"flips"`
	Proposed       int64       `json:"proposed"`
	Accepted       int64       `json:"accepted"`
	Params         string      `json:"params,omitempty"`
	Tune           *TuneRecord `json:"tune,omitempty"`
	// Machine is the host and CPU that finished the trial.
	Machine string `json:"machine,omitempty"`
	// Replica is the ladder, swap acceptance and round trips of a
	// replica-exchange trial.
	Replica *replica.Report `json:"replica,omitempty"`
	// Cycles is the cycle a single hybrid chain's tuner chose during the
	// burn-in, with what it measured (replica.TuneChain; inside replica
	// exchange it is Replica.Cycles instead).
	Cycles *replica.CycleTuning `json:"cycles,omitempty"`
	// Overlap is the spin overlap q after each kept step (replica exchange
	// with two sets), written to overlap.csv.
	Overlap []float64 `json:"-"`
	// Rungs is every rung's energy (and overlap) at the end of each swap
	// round after the burn-in (replica exchange; rungs.csv; nil in folders
	// of versions before it).
	Rungs *RungTrace `json:"rungs,omitempty"`
	// Observables are the model facts the summary's observables need and
	// the trial's own estimates of them (nil in folders of versions
	// before them).
	Observables *TrialObservables `json:"observables,omitempty"`
	// Marginals are the spins' and pairs' means with --marginals
	// (marginals.npy, correlations.npy).
	Marginals *TrialMarginals `json:"marginals,omitempty"`
	// Budget is a --budget trial's share of thread CPU, the steps it made
	// and the burn-in it discarded (nil: a trial of the run's --steps and
	// --burn).
	Budget *TrialBudget `json:"budget,omitempty"`
	// Lowest is the lowest energy of every step, the burn-in's included,
	// and the first step that reached it; Best the K lowest distinct
	// states with --save-best K (nil in folders of versions before them,
	// and Best without --save-best).
	Lowest *Lowest  `json:"lowest,omitempty"`
	Best   *BestSet `json:"best,omitempty"`
}

// TrialBudget is what a trial of a --budget run was given and did: it ran
// until its thread CPU (its workers' included) reached CPUSeconds, and
// discarded the steps made in the first BurnFraction of that CPU.
type TrialBudget struct {
	CPUSeconds   float64 `json:"cpu_seconds"`   // the trial's share: --budget over --trials
	BurnFraction float64 `json:"burn_fraction"` // --burn-fraction
	Steps        int     `json:"steps"`         // steps made (the length of energy.csv)
	BurnIn       int     `json:"burn_in"`       // the first steps, discarded from the statistics
	// BurnCPUSeconds is the trial's CPU when its burn-in ended (null: it
	// stopped at StepCap before; its burn-in is then BurnFraction of its
	// steps).
	BurnCPUSeconds *float64 `json:"burn_cpu_seconds"`
	// StepCap says why the trial stopped before its budget, when it did:
	// it reached the most steps the memory and disk of the run hold.
	StepCap string `json:"step_cap,omitempty"`
}

// burnIn is the steps r discarded: its own with a budget, else the run's
// burn.
func (r *TrialRecord) burnIn(burn int) int {
	if r.Budget != nil {
		return r.Budget.BurnIn
	}
	return burn
}

// Trace says which steps a trial's kept draws are: the first BurnIn.Kept
// of them are the burn-in's (after the steps BurnIn.Step(j)), the rest
// those after it (Kept.Step(j), Kept.Origin being the burn-in).
type Trace struct {
	BurnIn draws.Thinning `json:"burn_in"`
	Kept   draws.Thinning `json:"kept"`
}

// Moments are a trial's exact sums over every step after its burn-in.
type Moments struct {
	Energy        draws.Moments    `json:"energy"`
	Magnetization draws.IntMoments `json:"magnetization"` // of M = sum_i s_i
	// With two sets of replicas: of q, |q| and q^2.
	Overlap    *draws.Moments `json:"overlap,omitempty"`
	AbsOverlap *draws.Moments `json:"abs_overlap,omitempty"`
	Overlap2   *draws.Moments `json:"overlap2,omitempty"`
}

// StepsMade is the steps r made (the kept draws of a folder of a version
// before Steps).
func (r *TrialRecord) StepsMade() int {
	if r.Trace == nil {
		return len(r.Energies)
	}
	return r.Steps
}

// burnDraws is how many of r's kept draws are its burn-in's.
func (r *TrialRecord) burnDraws(burn int) int {
	if r.Trace == nil {
		return min(r.burnIn(burn), len(r.Energies))
	}
	return min(r.Trace.BurnIn.Kept, len(r.Energies))
}

// stepOf is the step after which r's kept draw j was taken.
func (r *TrialRecord) stepOf(j int) int {
	switch {
	case r.Trace == nil:
		return j + 1
	case j < r.Trace.BurnIn.Kept:
		return r.Trace.BurnIn.Step(j)
	}
	return r.Trace.Kept.Step(j - r.Trace.BurnIn.Kept)
}

// valid checks a trace read from a folder (nil: a folder of a version
// before it).
func (t *Trace) valid() error {
	if t == nil {
		return nil
	}
	if err := t.BurnIn.Valid(); err != nil {
		return fmt.Errorf("trace.burn_in: %v", err)
	}
	if t.Kept != (draws.Thinning{}) {
		if err := t.Kept.Valid(); err != nil {
			return fmt.Errorf("trace.kept: %v", err)
		}
	}
	return nil
}

// every is the steps between r's kept draws after its burn-in.
func (r *TrialRecord) every() int {
	if r.Trace == nil {
		return 1
	}
	return max(1, r.Trace.Kept.Every)
}

// kept is r's kept energies after its burn-in.
func (r *TrialRecord) kept(burn int) []float64 {
	return r.Energies[r.burnDraws(burn):]
}
