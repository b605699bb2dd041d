package runner

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"sardonics/model"
	"sardonics/replica"
	"sardonics/saw"
	"sardonics/sawsampler"
	"sardonics/summary"
)

// tunedReplicaConfig is a hybrid replica-exchange run whose cycle tuner
// runs from step 821 (half the burn-in, where the adaptive ladder stops)
// past step 1000, the first block where a stopped trial checkpoints, in
// its second assignment by then.
func tunedReplicaConfig(t *testing.T, dir string) *Config {
	t.Helper()
	m, err := model.Load("spinglass2d:L=6,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	return &Config{Model: m, Beta: 2, Samplers: []string{"hybrid"}, Steps: 3000, Burn: 1640, Trials: 1, Seed: 3, Threads: 1,
		SAW: sawsampler.Config{Thetas: []saw.Theta{saw.DefaultTheta}}, Dir: dir,
		Replicas: ReplicaConfig{R: 4, BetaMin: 0.3, Adaptive: true, Overlap: true, Workers: 1, TuneCycles: true, TuneSeconds: 1}}
}

// tuningJSON is a trial's tuning record without its CPU times.
func tuningJSON(t *testing.T, r *summary.TrialRecord) (*replica.Tuning, string) {
	t.Helper()
	if r.Replica == nil || r.Replica.Cycles == nil {
		t.Fatal("no tuning recorded")
	}
	x := *r.Replica.Cycles
	x.CPUSeconds, x.CPUShare, x.AnalysisCPUSeconds = 0, 0, 0
	b, _ := json.Marshal(x)
	return r.Replica.Cycles, string(b)
}

// TestReplicaTuneResumeMidTuning: a hybrid replica-exchange trial stopped
// at step 1000, while its cycle tuner runs its second or a later
// assignment, and resumed from its
// checkpoint makes the same steps, overlap, ladder and tuning as an
// uninterrupted trial; the tuning starts after the ladder's adaptation (half
// the burn-in) and ends within the burn-in, and its CPU is recorded, a
// share of the trial's.
func TestReplicaTuneResumeMidTuning(t *testing.T) {
	full := tunedReplicaConfig(t, t.TempDir())
	want, err := RunTrial(full, "hybrid", 0)
	if err != nil {
		t.Fatal(err)
	}
	part := tunedReplicaConfig(t, t.TempDir())
	part.Stop = &atomic.Bool{}
	part.Stop.Store(true)
	if _, err := RunTrial(part, "hybrid", 0); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped trial: %v", err)
	}
	if _, err := os.Stat(CheckpointPath(part.Dir, "hybrid", 0)); err != nil {
		t.Fatal(err)
	}
	part.Stop.Store(false)
	got, err := RunTrial(part, "hybrid", 0)
	if err != nil {
		t.Fatal(err)
	}
	tn, a := tuningJSON(t, want)
	_, b := tuningJSON(t, got)
	t.Logf("tuning from step %d to %d (%s), %d assignments, chose %d: %s; CPU %.3f s, %.1f%% of the trial's",
		tn.From, tn.End, tn.Ended, len(tn.Assignments), tn.Chosen, tn.DecidedBy, tn.CPUSeconds, 100*tn.CPUShare)
	for _, x := range tn.Assignments {
		t.Logf("  %s: %d rounds, %d steps", x.Label, x.Rounds, x.Steps)
	}
	if !(tn.From+tn.Assignments[0].Steps < 1000 && tn.End > 1000) {
		t.Errorf("the tuning ran from step %d to %d: the stop at step 1000 did not fall inside its second assignment or later", tn.From, tn.End)
	}
	if tn.From <= int64(full.Burn/2) || tn.End > int64(full.Burn) || !(tn.CPUSeconds > 0 && tn.CPUShare > 0 && tn.CPUShare < 1) {
		t.Errorf("tuning from %d to %d (burn-in %d), CPU %v s, share %v", tn.From, tn.End, full.Burn, tn.CPUSeconds, tn.CPUShare)
	}
	if !slices.Equal(want.Energies, got.Energies) || !slices.Equal(want.Overlap, got.Overlap) || !slices.Equal(want.Replica.Ladder, got.Replica.Ladder) {
		t.Error("the resumed trial's draws or ladder differ")
	}
	if a != b {
		t.Errorf("tunings differ:\n%.600s\n%.600s", a, b)
	}
	if c := got.Replica.Cycles; !(c.CPUSeconds > 0) {
		t.Errorf("the resumed trial lost the tuning's CPU: %+v", c)
	}
}
