package summary

import (
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
	Sampler  string    `json:"sampler"`
	Trial    int       `json:"trial"`
	Energies []float64 `json:"-"` // energy after each step 1..Steps
	// Magnetization is M = sum_i s_i after each step 1..Steps
	// (magnetization.csv); nil in folders of versions before it.
	Magnetization []int32   `json:"-"`
	States        [][]uint8 `json:"-"` // kept states, with --save-states
	// Samples are States as distinct states with energies and counts
	// (samples.npz).
	Samples *SampleSet `json:"-"`
	// SaveEvery is the thinning of the saved states (--save-every: one
	// state in SaveEvery steps after the burn-in); SavedStates and
	// DistinctStates count the rows of states.npy and samples.npz.
	SaveEvery      int         `json:"save_every,omitempty"`
	SavedStates    int         `json:"saved_states,omitempty"`
	DistinctStates int         `json:"distinct_states,omitempty"`
	WallSeconds    float64     `json:"wall_seconds"`
	CPUSeconds     float64     `json:"cpu_seconds"`
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
	// Overlap is the spin overlap q after each step (replica exchange with
	// two sets), written to overlap.csv.
	Overlap []float64 `json:"-"`
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

// kept is r's energies after its burn-in.
func (r *TrialRecord) kept(burn int) []float64 {
	return r.Energies[min(r.burnIn(burn), len(r.Energies)):]
}
