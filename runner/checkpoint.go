package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"sardonics/atomicfile"
	"sardonics/draws"
	"sardonics/replica"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/summary"
)

// checkpointVersion changes whenever the format does.
const checkpointVersion = 5

// checkpoint is the complete state of a trial at a block boundary.
type checkpoint struct {
	Version       int                   `json:"version"`
	Meta          summary.Meta          `json:"meta"`
	Sampler       string                `json:"sampler"`
	Trial         int                   `json:"trial"`
	Spins         []int8                `json:"spins"`
	State         []byte                `json:"state,omitempty"` // a Stateful chain's whole state
	RNG           []byte                `json:"rng"`
	Base          sampler.Stats         `json:"counters"`
	Steps         int                   `json:"steps"`
	Trace         *summary.Trace        `json:"trace"`
	Moments       *summary.Moments      `json:"moments,omitempty"`
	Energies      []float64             `json:"energies"` // the kept draws
	Magnetization []int32               `json:"magnetization"`
	States        [][]uint8             `json:"states,omitempty"`
	StateEnergies []float64             `json:"state_energies,omitempty"`
	Overlap       []float64             `json:"overlap,omitempty"` // replica exchange with two sets
	Marginals     *summary.MarginalsAcc `json:"marginals,omitempty"`
	Thetas        []string              `json:"thetas,omitempty"`
	Tuning        json.RawMessage       `json:"tuning,omitempty"`    // the adaptation in progress
	TuneRecord    *summary.TuneRecord   `json:"tune_done,omitempty"` // the finished adaptation
	Cycles        *replica.CycleTuning  `json:"cycles,omitempty"`    // a single hybrid chain's tuned cycle
	TuneCPU       *[2]float64           `json:"tune_cpu,omitempty"`  // trial.tuneCPU, once the ladder's cycle tuning began
	CPUSeconds    float64               `json:"cpu_seconds"`
	WaitCPU       float64               `json:"wait_cpu_seconds"`
	Wall          float64               `json:"wall_seconds"`
	// A budget trial's burn-in (with the CPU when it ended) and the steps
	// of its ladder's adaptation, once its CPU has fixed them.
	BurnIn  *int    `json:"burn_in,omitempty"`
	BurnCPU float64 `json:"burn_cpu_seconds,omitempty"`
	Adapt   *int    `json:"adapt,omitempty"`
	// Every rung's record (replica exchange), its kept rounds apart.
	Rungs        *summary.RungTrace `json:"rungs,omitempty"`
	RungSteps    []int              `json:"rung_steps,omitempty"`
	RungEnergies [][]float64        `json:"rung_energies,omitempty"`
	RungOverlaps [][]float64        `json:"rung_overlaps,omitempty"`
	// The lowest energy so far and, with --save-best, the lowest states.
	Lowest *summary.Lowest  `json:"lowest,omitempty"`
	Best   *summary.BestSet `json:"best,omitempty"`
}

// CheckpointPath is where trial t of sampler name checkpoints in dir.
func CheckpointPath(dir, name string, t int) string {
	return filepath.Join(dir, "checkpoint", name, fmt.Sprintf("trial-%d.ckpt", t))
}

func (t *trial) checkpoint(cpu, wall float64) error {
	if t.cfg.Dir == "" {
		return errors.New("checkpoint requested but the run has no output folder")
	}
	if t.full != nil {
		if err := t.full.flush(); err != nil {
			return err
		}
	}
	rs, err := t.r.MarshalBinary()
	if err != nil {
		return err
	}
	c := checkpoint{Version: checkpointVersion, Meta: t.cfg.Meta, Sampler: t.name, Trial: t.rec.Trial,
		Spins: t.ch.Spins(), RNG: rs, Base: t.base,
		Steps: t.rec.Steps, Trace: t.rec.Trace, Moments: t.rec.Moments, Energies: t.rec.Energies, Magnetization: t.rec.Magnetization,
		States: t.rec.States, StateEnergies: t.rec.StateEnergies, Overlap: t.rec.Overlap,
		TuneRecord: t.rec.Tune, Cycles: t.rec.Cycles, Marginals: t.marg, CPUSeconds: cpu, WaitCPU: t.waitCPU(), Wall: wall,
		Lowest: t.rec.Lowest, Best: t.rec.Best}
	if rt := t.rec.Rungs; rt != nil {
		c.Rungs, c.RungSteps, c.RungEnergies, c.RungOverlaps = rt, rt.Steps, rt.E, rt.Q
	}
	if sf, ok := t.stateful(); ok {
		c.State = sf.AppendState(nil)
	}
	if t.tuneCPU[0] >= 0 {
		x := t.tuneCPU
		c.TuneCPU = &x
	}
	if t.cfg.budget() {
		if b := t.burn; b != unknownSteps {
			c.BurnIn, c.BurnCPU = &b, t.burnCPU
		}
		if a := t.adapt; a != unknownSteps {
			c.Adapt = &a
		}
	}
	for _, th := range t.thetas {
		c.Thetas = append(c.Thetas, th.String())
	}
	if t.tune != nil && !t.tune.Done() {
		if c.Tuning, err = json.Marshal(t.tune); err != nil {
			return err
		}
	}
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	// The first line is the SHA-256 of the rest: a truncated or edited
	// checkpoint is refused, never silently used.
	data := append([]byte(hex.EncodeToString(sum[:])+"\n"), body...)
	return atomicfile.WriteFileMkdir(CheckpointPath(t.cfg.Dir, t.name, t.rec.Trial), data)
}

// restore loads the trial's checkpoint if there is one (nil if not).
func (t *trial) restore(cpu, wall *float64) (*checkpoint, error) {
	if t.cfg.Dir == "" {
		return nil, nil
	}
	path := CheckpointPath(t.cfg.Dir, t.name, t.rec.Trial)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := parseCheckpoint(path, data)
	if err != nil {
		return nil, err
	}
	if c.Meta != t.cfg.Meta || c.Sampler != t.name || c.Trial != t.rec.Trial {
		return nil, otherRunError(path, c.Sampler, c.Trial, c.Meta, t.name, t.rec.Trial, t.cfg.Meta)
	}
	if len(c.Spins) != t.cfg.Model.Variables() || c.Steps > t.cfg.Steps || len(c.Magnetization) != len(c.Energies) ||
		len(c.StateEnergies) != len(c.States) || !c.fitsTrace(t.cfg.traceCap()) {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint does not fit the model, step count or --trace-draws", path)}
	}
	if err := t.r.UnmarshalBinary(c.RNG); err != nil {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: random stream: %v", path, err)}
	}
	t.base, t.rec.Energies, t.rec.States, t.rec.StateEnergies, t.rec.Tune = c.Base, c.Energies, c.States, c.StateEnergies, c.TuneRecord
	t.rec.Lowest, t.rec.Best = c.Lowest, c.Best
	t.rec.Steps, t.rec.Trace, t.rec.Moments = c.Steps, c.Trace, c.Moments
	t.rec.Overlap, t.rec.Magnetization, t.rec.Cycles = c.Overlap, c.Magnetization, c.Cycles
	if c.TuneCPU != nil {
		t.tuneCPU = *c.TuneCPU
	}
	if err := c.fitsRungs(t.cfg); err != nil {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint does not fit the run: %v", path, err)}
	}
	t.rec.Rungs = c.Rungs
	if (c.Marginals != nil) != (t.marg != nil) {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint does not fit the run (marginals measured: %v, now: %v)", path, c.Marginals != nil, t.marg != nil)}
	}
	if m := c.Marginals; m != nil {
		if m.Steps != t.marg.Steps || m.Batches != t.marg.Batches || len(m.Cur) != len(t.marg.Cur) || len(m.S1) != len(m.Cur) || len(m.S2) != len(m.Cur) {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint's marginals do not fit the run", path)}
		}
		m.PI, m.PJ = t.marg.PI, t.marg.PJ
		t.marg = m
	}
	t.thetas = nil
	for _, s := range c.Thetas {
		th, err := saw.ParseTheta(s)
		if err != nil {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: %v", path, err)}
		}
		t.thetas = append(t.thetas, th)
	}
	if t.rec.Tune != nil {
		t.rec.Tune.Policy = t.thetas
	}
	if len(c.Tuning) > 0 {
		if t.tune == nil {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint is mid-tuning but this run does not tune", path)}
		}
		if err := t.tune.UnmarshalJSON(c.Tuning); err != nil {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: tuning state: %v", path, err)}
		}
	} else if t.tune != nil {
		t.tune = doneTuning{t.tune}
	}
	if t.cfg.budget() {
		if c.BurnIn != nil {
			t.burn, t.burnCPU = *c.BurnIn, c.BurnCPU
		}
		if c.Adapt != nil {
			t.adapt = *c.Adapt
		}
	}
	*cpu, *wall = c.CPUSeconds, c.Wall
	t.waitPrev = c.WaitCPU
	return c, nil
}

// fitsTrace checks the kept draws of c against its thinning (whose
// capacity must be capacity, the run's).
func (c *checkpoint) fitsTrace(capacity int) bool {
	tr := c.Trace
	if tr == nil || tr.BurnIn.Valid() != nil || tr.BurnIn.Cap != capacity || tr.BurnIn.Origin != 0 {
		return false
	}
	if tr.Kept.Every == 0 { // no step after the burn-in yet
		return c.Moments == nil && tr.Kept == (draws.Thinning{}) && len(c.Energies) == tr.BurnIn.Kept
	}
	return tr.Kept.Valid() == nil && tr.Kept.Cap == capacity && c.Moments != nil &&
		len(c.Energies) == tr.BurnIn.Kept+tr.Kept.Kept && (c.Overlap == nil || len(c.Overlap) == len(c.Energies))
}

// fitsRungs checks c's record of every rung against the run's ladder and
// cap, and joins its kept rounds to it.
func (c *checkpoint) fitsRungs(cfg *Config) error {
	rt := c.Rungs
	if rt == nil {
		if cfg.Replicas.On() {
			return errors.New("no record of the rungs")
		}
		return nil
	}
	rt.Steps, rt.E, rt.Q = c.RungSteps, c.RungEnergies, c.RungOverlaps
	if !cfg.Replicas.On() || rt.Rungs != cfg.Replicas.R || (rt.Overlap2 != nil) != cfg.Replicas.Overlap || rt.Thinning.Cap != cfg.RungCap()&^1 {
		return fmt.Errorf("a record of %d rungs (overlap %v, %d rounds kept at most) for a run of %d (overlap %v, %d)",
			rt.Rungs, rt.Overlap2 != nil, rt.Thinning.Cap, cfg.Replicas.R, cfg.Replicas.Overlap, cfg.RungCap()&^1)
	}
	return rt.Valid(true)
}

// doneTuning marks a restored trial whose adaptation had finished.
type doneTuning struct{ TuneSession }

func (doneTuning) Done() bool { return true }

func parseCheckpoint(path string, data []byte) (*checkpoint, error) {
	nl := bytes.IndexByte(data, '\n')
	if nl != 64 {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: not a sardonics checkpoint (expected a SHA-256 line)", path)}
	}
	sum := sha256.Sum256(data[nl+1:])
	if hex.EncodeToString(sum[:]) != string(data[:nl]) {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint is corrupted or truncated (checksum mismatch); delete it to start the trial afresh", path)}
	}
	var c checkpoint
	if err := json.Unmarshal(data[nl+1:], &c); err != nil {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: %v", path, err)}
	}
	if c.Version != checkpointVersion {
		return nil, &sampler.UsageError{Msg: fmt.Sprintf("%s: checkpoint version %d (expected %d)", path, c.Version, checkpointVersion)}
	}
	return &c, nil
}
