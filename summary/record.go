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
}
