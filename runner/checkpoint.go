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
	"sardonics/sampler"
	"sardonics/summary"
)

// checkpointVersion changes whenever the format does.
const checkpointVersion = 6

// checkpoint is the complete state of a trial at a block boundary, as one
// value of the trial's parts: its record so far, its chain's spins and
// state, its random stream and counters, its clocks, and every adapter's
// state (in the trial's order of them), under the run's Meta.
type checkpoint struct {
	Version  int               `json:"version"`
	Meta     summary.Meta      `json:"meta"`
	Record   savedRecord       `json:"record"`
	Spins    []int8            `json:"spins"`
	State    []byte            `json:"state,omitempty"` // a Stateful chain's whole state
	RNG      []byte            `json:"rng"`
	Base     sampler.Stats     `json:"counters"`
	Clock    clockState        `json:"clock"`
	Adapters []json.RawMessage `json:"adapters,omitempty"`
}

// savedRecord is a trial's record mid-run: the record itself, with the
// draws its folder keeps in files rather than in stats.json (the kept
// steps' observables, saved states, every rung's kept rounds) and the
// marginals' accumulator.
type savedRecord struct {
	*summary.TrialRecord
	Energies      []float64             `json:"energies"`
	Magnetization []int32               `json:"magnetization"`
	States        [][]uint8             `json:"states,omitempty"`
	StateEnergies []float64             `json:"state_energies,omitempty"`
	Overlap       []float64             `json:"overlap,omitempty"`
	RungSteps     []int                 `json:"rung_steps,omitempty"`
	RungEnergies  [][]float64           `json:"rung_energies,omitempty"`
	RungOverlaps  [][]float64           `json:"rung_overlaps,omitempty"`
	Marginals     *summary.MarginalsAcc `json:"marginals_acc,omitempty"`
}

// CheckpointPath is where trial t of sampler name checkpoints in dir.
func CheckpointPath(dir, name string, t int) string {
	return filepath.Join(dir, "checkpoint", name, fmt.Sprintf("trial-%d.ckpt", t))
}

// CheckpointWall is the wall time trial t of sampler name had spent when
// it last checkpointed in dir (0: no checkpoint this version reads).
func CheckpointWall(dir, name string, t int) float64 {
	path := CheckpointPath(dir, name, t)
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	c, err := parseCheckpoint(path, data)
	if err != nil {
		return 0
	}
	return c.Clock.Wall
}

// checkpoint writes t's checkpoint, wall its wall time so far.
func (t *trial) checkpoint(wall float64) error {
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
	rec := t.rec
	c := checkpoint{Version: checkpointVersion, Meta: t.cfg.Meta, Spins: t.ch.Spins(), RNG: rs, Base: t.base,
		Clock: t.saveClock(wall),
		Record: savedRecord{TrialRecord: rec, Energies: rec.Energies, Magnetization: rec.Magnetization, States: rec.States,
			StateEnergies: rec.StateEnergies, Overlap: rec.Overlap, Marginals: t.marg}}
	if rt := rec.Rungs; rt != nil {
		c.Record.RungSteps, c.Record.RungEnergies, c.Record.RungOverlaps = rt.Steps, rt.E, rt.Q
	}
	if sf, ok := t.stateful(); ok {
		c.State = sf.AppendState(nil)
	}
	for _, a := range t.adapters {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		c.Adapters = append(c.Adapters, b)
	}
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	// The first line is the SHA-256 of the rest: a truncated or edited
	// checkpoint is refused, never silently used.
	data := append([]byte(hex.EncodeToString(sum[:])+"\n"), body...)
	return atomicfile.WriteFileMkdir(CheckpointPath(t.cfg.Dir, t.name, rec.Trial), data)
}

// restore loads the trial's checkpoint if there is one (nil if not),
// returning the wall time it had spent.
func (t *trial) restore() (*checkpoint, float64, error) {
	if t.cfg.Dir == "" {
		return nil, 0, nil
	}
	path := CheckpointPath(t.cfg.Dir, t.name, t.rec.Trial)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	c, err := parseCheckpoint(path, data)
	if err != nil {
		return nil, 0, err
	}
	if rec := c.Record.TrialRecord; rec == nil {
		return nil, 0, &sampler.UsageError{Msg: path + ": checkpoint holds no record"}
	} else if c.Meta != t.cfg.Meta || rec.Sampler != t.name || rec.Trial != t.rec.Trial {
		return nil, 0, otherRunError(path, rec.Sampler, rec.Trial, c.Meta, t.name, t.rec.Trial, t.cfg.Meta)
	}
	if err := t.restoreFrom(c); err != nil {
		return nil, 0, &sampler.UsageError{Msg: fmt.Sprintf("%s: %v", path, err)}
	}
	return c, t.restoreClock(c.Clock), nil
}

// restoreFrom checks checkpoint c, of this trial of this run, against the
// run's settings and takes its record,
// stream, counters and adapters' states.
func (t *trial) restoreFrom(c *checkpoint) error {
	cr := &c.Record
	rec := cr.TrialRecord
	rec.Energies, rec.Magnetization, rec.States, rec.StateEnergies, rec.Overlap = cr.Energies, cr.Magnetization, cr.States, cr.StateEnergies, cr.Overlap
	if len(c.Spins) != t.cfg.Model.Variables() || rec.Steps > t.cfg.Steps || len(rec.Magnetization) != len(rec.Energies) ||
		len(rec.StateEnergies) != len(rec.States) || !fitsTrace(rec, t.cfg.traceCap()) {
		return errors.New("checkpoint does not fit the model, step count or --trace-draws")
	}
	if err := t.r.UnmarshalBinary(c.RNG); err != nil {
		return fmt.Errorf("random stream: %v", err)
	}
	if err := cr.fitsRungs(t.cfg); err != nil {
		return fmt.Errorf("checkpoint does not fit the run: %v", err)
	}
	if (cr.Marginals != nil) != (t.marg != nil) {
		return fmt.Errorf("checkpoint does not fit the run (marginals measured: %v, now: %v)", cr.Marginals != nil, t.marg != nil)
	}
	if m := cr.Marginals; m != nil {
		if m.Steps != t.marg.Steps || m.Batches != t.marg.Batches || len(m.Cur) != len(t.marg.Cur) || len(m.S1) != len(m.Cur) || len(m.S2) != len(m.Cur) {
			return errors.New("checkpoint's marginals do not fit the run")
		}
		m.PI, m.PJ = t.marg.PI, t.marg.PJ
		t.marg = m
	}
	if len(c.Adapters) != len(t.adapters) {
		return fmt.Errorf("checkpoint holds the state of %d adapters, the run has %d", len(c.Adapters), len(t.adapters))
	}
	for i, a := range t.adapters {
		if err := a.UnmarshalJSON(c.Adapters[i]); err != nil {
			return err
		}
	}
	t.rec, t.base = rec, c.Base
	return nil
}

// fitsTrace checks the kept draws of c against its thinning (whose
// capacity must be capacity, the run's).
func fitsTrace(c *summary.TrialRecord, capacity int) bool {
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
func (c *savedRecord) fitsRungs(cfg *Config) error {
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
