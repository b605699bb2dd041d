package replica

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"sardonics/sampler"
	"sardonics/topology"
)

// CycleTuner is Config.Tune: each rung's hybrid cycle is chosen during
// the burn-in (issue 35, item 6; see the package comment, "A cycle per
// rung", and tuneControl for the schedule). Every member must be a Cycler.
type CycleTuner struct {
	// Candidates are the cycles {A, M} tried (A, M >= 0, not both 0);
	// Candidates[0] is the cheap cycle (CandidateCycles puts 1:0 first):
	// every rung runs it until the tuning starts, and it is the choice
	// wherever no other candidate is shown to pay.
	Candidates [][2]int
	// From: the tuning starts at the first round after step From and
	// after the ladder's adaptation (Config.Adapt).
	From int
	// Window is the tuning's budget in steps of the cheap cycle: every
	// assignment measured gets the modelled CPU that the cheap cycle
	// spends in Window / (len(Candidates) + 1) steps. The tuning also ends
	// before the round that would reach Config.CountFrom.
	Window int
	Costs  CycleCosts // the cost model (DefaultCycleCosts, or MeasureCycleCosts's)
}

func (tc *CycleTuner) check() error {
	if len(tc.Candidates) == 0 || tc.From < 0 || tc.Window < 0 {
		return fmt.Errorf("replica: tuning %d candidates from step %d over %d steps (expected at least 1 candidate, steps >= 0)", len(tc.Candidates), tc.From, tc.Window)
	}
	for i, cy := range tc.Candidates {
		if cy[0] < 0 || cy[1] < 0 || cy[0] == 0 && cy[1] == 0 {
			return fmt.Errorf("replica: candidate cycle %d:%d (expected sweeps and moves >= 0, not both 0)", cy[0], cy[1])
		}
		if slices.Contains(tc.Candidates[:i], cy) {
			return fmt.Errorf("replica: candidate cycle %d:%d twice", cy[0], cy[1])
		}
	}
	return tc.Costs.check()
}

// Tuning is what the burn-in's cycle tuner measured and chose (stats.json
// replica.cycles): each assignment of cycles to rungs it ran, scored by
// the target rung's slow observable and by round trips, and per rung what
// the rung's own slow observable said of each candidate.
type Tuning struct {
	Candidates [][2]int   `json:"candidates"`
	Observable string     `json:"observable"` // "q2" (two sets) or "abs_m"
	Costs      CycleCosts `json:"costs"`
	From       int64      `json:"from_step"` // the step after which the tuning began
	End        int64      `json:"end_step"`  // the step after which the chosen cycles run
	// Ended is "budget" (every assignment ran its budget), "burn-in" (the
	// burn-in ended first: the assignments not run are absent) or "no
	// window" (no steps to tune in: the cheap cycle everywhere).
	Ended string `json:"ended"`
	// BudgetSeconds is each assignment's modelled CPU (the cheap cycle's
	// over its share of the window), ModelledSeconds all the assignments'.
	BudgetSeconds   float64      `json:"budget_modelled_cpu_seconds"`
	ModelledSeconds float64      `json:"modelled_cpu_seconds"`
	Assignments     []Assignment `json:"assignments"` // in the order run
	Chosen          int          `json:"chosen"`      // index into Assignments (-1: none ran)
	DecidedBy       string       `json:"decided_by"`
	Rungs           []RungChoice `json:"rungs"` // hottest first
	// Note warns where no assignment's window saw MinTraversals
	// traversals of the ladder: a replica's journey through the ladder
	// is then slower than the windows, and so may be the slow observable's
	// slowest mode, which no window shorter than it can see.
	Note string `json:"note,omitempty"`
	// CPUSeconds is the trial's CPU (every thread) over the tuning's
	// rounds, to within a round, and CPUShare its share of the trial's
	// CPU: the runner measures and sets them (0 outside a runner).
	// AnalysisCPUSeconds is the scoring alone in this process (not
	// carried across a resume).
	CPUSeconds         float64 `json:"cpu_seconds"`
	CPUShare           float64 `json:"cpu_share,omitempty"`
	AnalysisCPUSeconds float64 `json:"tuner_cpu_seconds"`
}

// Assignment is one assignment of cycles to rungs run during the tuning
// and what its measured rounds (those after the first quarter of its
// budget) gave.
type Assignment struct {
	Label          string   `json:"label"`  // "A:M" (the candidate at every rung) or "per-rung"
	Cycles         [][2]int `json:"cycles"` // hottest first
	Rounds         int      `json:"rounds"`
	MeasuredRounds int      `json:"measured_rounds"`
	Steps          int64    `json:"steps"` // the chain's steps over all its rounds
	// ModelledSeconds is the modelled CPU of the measured rounds, every
	// member's.
	ModelledSeconds float64 `json:"modelled_cpu_seconds"`
	// Slow is the target rung's slow observable, Energy its energy (shown
	// for comparison; the choice does not use it), per round end.
	Slow   Score `json:"slow"`
	Energy Score `json:"energy"`
	// Traversals counts the members' journeys from one end of the ladder
	// to the other (a round trip is two); RoundTripsPerCPUSecond is
	// traversals / 2 per modelled CPU-second, an upper bound where
	// TripsKnown is false (fewer than MinTraversals: MinTraversals counted
	// instead).
	Traversals             int64   `json:"traversals"`
	RoundTripsPerCPUSecond float64 `json:"round_trips_per_cpu_second"`
	TripsKnown             bool    `json:"round_trips_known"`
	VsCheap                string  `json:"vs_cheap"`      // against Assignments[0] (see better)
	Cut                    bool    `json:"cut,omitempty"` // the burn-in ended before its budget was spent
}

// Score is an observable's effective samples over an assignment's measured
// rounds (one value per round end) per modelled CPU-second.
type Score struct {
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
	// Tau is the integrated autocorrelation time in rounds and ESS the
	// effective samples (rounds / Tau); where Resolved is false, Why says
	// why and Tau is a lower bound, ESS and PerCPUSecond upper bounds.
	// RelErr is tau's relative standard error (Sokal's): a resolved
	// ESS is compared as the range ESS / (1 +- RelErr).
	Tau          float64 `json:"tau_rounds"`
	ESS          float64 `json:"ess"`
	PerCPUSecond float64 `json:"ess_per_cpu_second"`
	RelErr       float64 `json:"tau_rel_err,omitempty"`
	Resolved     bool    `json:"resolved"`
	Why          string  `json:"why,omitempty"`
}

// RungChoice is one rung's cycle and what its own slow observable said of
// each candidate.
type RungChoice struct {
	Beta  float64 `json:"beta"`
	Cycle [2]int  `json:"cycle"` // the chosen {A, M}
	// PerRung is the candidate the rung's own slow observable preferred
	// (the per-rung assignment's entry).
	PerRung [2]int      `json:"per_rung_best"`
	Tried   []RungScore `json:"tried"` // per candidate, when it ran at every rung
}

// RungScore is one candidate at one rung: the rung's slow observable and
// energy per modelled CPU-second of the rung's members (both sets).
type RungScore struct {
	Slow            Score   `json:"slow"`
	Energy          Score   `json:"energy"`
	ModelledSeconds float64 `json:"modelled_cpu_seconds"`
}

// MinTuneRounds is the fewest measured rounds whose autocorrelation time
// a score estimates, and MinTuneESS the fewest effective samples of a
// resolved score (see batchScore).
const (
	MinTuneRounds = 32
	MinTuneESS    = 20
)

// MinTraversals is the fewest end-to-end traversals of the ladder whose
// rate a score uses.
const MinTraversals = 4

// Tuning phases.
const (
	tuneCheap = iota // the cheap cycle everywhere; the ladder may adapt
	tuneRun          // assignments run one after another
	tuneDone         // the chosen cycles run
)

// tuner is the chain's cycle tuner (Config.Tune).
type tuner struct {
	cfg CycleTuner
	st  tunerState // what the chain's state saves
	// jobNs is each job's modelled ns in the current round (job j: member
	// j%R of set j/R), written by the job alone.
	jobNs    []float64
	analysis float64 // CPU seconds of the scoring in this process
}

// tunerState is the tuner's part of the chain's state. Floats are finite
// (it is saved as JSON).
type tunerState struct {
	Phase     int           `json:"phase"`
	Seg       int           `json:"seg"`  // the running assignment: index into Plan
	Plan      [][][2]int    `json:"plan"` // each candidate at every rung, then the per-rung assignment where it differs
	Start     int64         `json:"start"`
	Rounds    int           `json:"rounds"`
	Spent     float64       `json:"spent"`  // modelled ns of the running assignment
	Budget    float64       `json:"budget"` // modelled ns per assignment (Plan[0]'s, once run)
	Measuring bool          `json:"measuring"`
	Meas      int           `json:"meas"`    // measured rounds
	Ns        float64       `json:"ns"`      // modelled ns of the measured rounds
	RungNs    []float64     `json:"rung_ns"` // the same per rung
	Slow      []batchAcc    `json:"slow"`    // per rung
	Energy    []batchAcc    `json:"energy"`  // per rung (set 0)
	Trav      int64         `json:"trav"`
	Ends      [][]int8      `json:"ends"` // per set and member: the end last touched while measuring (0 none, 1 hottest, 2 target)
	From      int64         `json:"from"`
	Total     float64       `json:"total"` // modelled ns of the finished assignments
	Done      []Assignment  `json:"done"`
	RungScore [][]RungScore `json:"rung_score"` // per finished assignment, per rung
	Res       *Tuning       `json:"res,omitempty"`
}

// newTuner checks tc against the chain's members and gives every member
// each candidate once (building the components they need now, so that a
// failure is an error here and not in a later step) and then the cheap
// cycle at every rung.
func (c *Chain) newTuner(tc *CycleTuner) error {
	if err := tc.check(); err != nil {
		return err
	}
	R := len(c.betas)
	for _, s := range c.sets {
		for _, m := range s.ms {
			cy, ok := m.ch.(Cycler)
			if !ok {
				return errors.New("replica: tuning the cycles needs hybrid members (replica.Cycler)")
			}
			for i := len(tc.Candidates) - 1; i >= 0; i-- {
				if err := cy.SetCycles(c.betas, uniform(tc.Candidates[i], R)); err != nil {
					return err
				}
			}
		}
	}
	t := &tuner{cfg: *tc, jobNs: make([]float64, R*len(c.sets))}
	t.cfg.Candidates = slices.Clone(tc.Candidates)
	for _, cy := range tc.Candidates {
		t.st.Plan = append(t.st.Plan, uniform(cy, R))
	}
	t.st.RungNs = make([]float64, R)
	t.st.Slow, t.st.Energy = make([]batchAcc, R), make([]batchAcc, R)
	t.st.Ends = make([][]int8, len(c.sets))
	for i := range t.st.Ends {
		t.st.Ends[i] = make([]int8, R)
	}
	c.tn = t
	return nil
}

func uniform(cy [2]int, R int) [][2]int {
	out := make([][2]int, R)
	for k := range out {
		out[k] = cy
	}
	return out
}

// setTable gives every member the cycle table (the chain's rungs, cycles).
// The components exist (newTuner built them) and the cycles were checked,
// so a failure is a bug.
func (c *Chain) setTable(cycles [][2]int) {
	for _, s := range c.sets {
		for _, m := range s.ms {
			if err := m.ch.(Cycler).SetCycles(c.betas, cycles); err != nil {
				panic("replica: " + err.Error())
			}
		}
	}
}

// Why this schedule and these scores (issue 35, item 6).
//
// The ladder adapts with the cheap cycle: swap acceptance and the energy
// spread depend on the rungs' distributions, not on the kernel that
// samples them, so any exact kernel places the rungs alike once it has
// relaxed, and the cheap one gets there for the least CPU. The cycles are
// chosen on the fixed ladder, since a choice keyed by the rungs' betas
// holds only if they no longer move.
//
// What is scored is what the run reports: the target rung's slow
// observable, q^2 of the two sets' target replicas (the spin glass order
// parameter, which relaxes with the glass's slowest modes) or, with one
// set, |m|, at each round end, and how fast replicas cross the ladder.
// The energy relaxes within a valley, so its autocorrelation over a
// short window sees only the fast modes: 1-second windows of it gave
// Metropolis to 31 of 33 rungs of the frustrated lattice, whatever the
// slow modes did (issue 35). A window only resolves modes faster than
// itself, so the windows here are as long as the burn-in allows: the
// tuning spends the modelled CPU the cheap cycle would spend on Window
// steps (the runner gives it the second half of the burn-in: a tenth of
// the run at the default burn-in), shared equally by the assignments,
// each measured over all but the first quarter of its share. Where a tau
// is not resolved in its window (see batchScore: Sokal's window would
// pass the trace's end, the trace never changed, or it has fewer than
// MinTuneRounds values or MinTuneESS effective samples), its ESS is an
// upper bound and is only used as one.
//
// A rung's kernel touches the target only through the swaps, and its CPU
// delays the whole ladder's rounds, so per-rung scores are not the
// objective: whole assignments are compared, each candidate at every rung
// and then the assignment that gives each rung the candidate its own
// slow observable preferred (per modelled CPU-second of its own members).
// An assignment replaces the one chosen so far (at first the cheap cycle
// everywhere) where its target's slow-observable ESS per CPU-second is
// higher beyond doubt: its lower bound above the other's upper bound, a
// resolved ESS being known within tau's standard error and an unresolved
// one lying between 0 and its upper bound. Where that cannot tell,
// round trips per CPU-second decide the same way (below MinTraversals
// traversals a rate is only an upper bound). Where neither can tell, the
// cheap cycle stays: an unknown score never counts as 0 or infinite, and
// a cycle with SARDONICS moves is run only where it was shown to pay.
//
// Costs are modelled (CycleCosts, from the members' counters), so the
// same seed gives the same choice with any Workers and on any machine.

// tuneControl runs at every round boundary, after the swaps and before
// the round: it starts the tuning once the ladder is fixed and the chain
// is past cfg.From, ends an assignment once its budget is spent (the first
// by its steps, the rest by its modelled CPU), starts measuring after the
// first quarter of it, and ends the tuning before the round that would
// reach CountFrom.
func (c *Chain) tuneControl() {
	t := c.tn
	s := &t.st
	last := int64(len(c.sets[0].tgtE)) // the last round's steps: the next round's, about
	cut := c.done+max(last, 1) > int64(c.cfg.CountFrom)
	switch s.Phase {
	case tuneDone:
		return
	case tuneCheap:
		if c.done <= int64(c.cfg.Adapt) || c.done < int64(t.cfg.From) {
			return
		}
		s.From = c.done
		if cut || t.segSteps() < 1 {
			c.finishTuning("no window")
			return
		}
		s.Phase = tuneRun
		c.startSegment(0)
		return
	}
	var end bool
	if s.Seg == 0 {
		end = c.done-s.Start >= t.segSteps()
	} else {
		end = s.Spent >= s.Budget
	}
	if end || cut {
		if s.Seg == 0 {
			s.Budget = s.Spent
		}
		c.finishSegment(cut && !end)
		return
	}
	if !s.Measuring {
		if s.Seg == 0 && 4*(c.done-s.Start) >= t.segSteps() || s.Seg > 0 && 4*s.Spent >= s.Budget {
			s.Measuring = true
			for _, e := range s.Ends {
				clear(e)
			}
		}
	}
}

// segSteps is the first assignment's steps: the window's share.
func (t *tuner) segSteps() int64 {
	return int64(t.cfg.Window / (len(t.cfg.Candidates) + 1))
}

// startSegment runs assignment i from the next round.
func (c *Chain) startSegment(i int) {
	s := &c.tn.st
	s.Seg, s.Start, s.Rounds, s.Spent, s.Measuring, s.Meas, s.Ns, s.Trav = i, c.done, 0, 0, false, 0, 0, 0
	clear(s.RungNs)
	clear(s.Slow)
	clear(s.Energy)
	c.setTable(s.Plan[i])
}

// tuneMember is runMember during the tuning: job j's round, and its
// modelled cost from its components' counters.
func (c *Chain) tuneMember(j int) {
	R := len(c.betas)
	m := c.sets[j/R].ms[j%R]
	cy := m.ch.(Cycler)
	pm, ps := cy.Parts()
	c.runMember(j)
	qm, qs := cy.Parts()
	bits, flips, sw := qm.Flips-pm.Flips, qs.Flips-ps.Flips, int64(0)
	if cyc := c.tn.st.Plan[c.tn.st.Seg][m.pos]; cyc[0] > 0 && cyc[1] > 0 {
		sw = bits / (int64(cyc[0]) * int64(c.n)) // steps: each sweeps A times
	}
	c.tn.jobNs[j] = c.tn.cfg.Costs.ns(bits, flips, sw, c.n)
}

// tuneRecord adds the round just run to the running assignment: its cost
// and, once measuring, every rung's slow observable and energy.
func (c *Chain) tuneRecord() {
	t := c.tn
	s := &t.st
	R := len(c.betas)
	ns := 0.0
	for j, x := range t.jobNs {
		ns += x
		if s.Measuring {
			s.RungNs[c.sets[j/R].ms[j%R].pos] += x
		}
	}
	s.Spent += ns
	s.Rounds++
	if !s.Measuring {
		return
	}
	s.Meas++
	s.Ns += ns
	a := c.sets[0]
	for k := range R {
		ma := a.ms[a.at[k]].ch
		s.Energy[k].Add(ma.Energy(), batchCap)
		if len(c.sets) == 2 {
			b := c.sets[1]
			q := overlap(ma.Spins(), b.ms[b.at[k]].ch.Spins())
			s.Slow[k].Add(q*q, batchCap)
		} else {
			s.Slow[k].Add(math.Abs(float64(sampler.SpinSum(ma.Spins())))/float64(c.n), batchCap)
		}
	}
}

// tuneTraverse counts the members' traversals of the ladder after a swap
// round (while measuring).
func (c *Chain) tuneTraverse() {
	s := &c.tn.st
	R := len(c.betas)
	for si, st := range c.sets {
		for j, m := range st.ms {
			var end int8
			switch m.pos {
			case 0:
				end = 1
			case R - 1:
				end = 2
			default:
				continue
			}
			if p := s.Ends[si][j]; p != 0 && p != end {
				s.Trav++
			}
			s.Ends[si][j] = end
		}
	}
}

// observable names the slow observable.
func (c *Chain) observable() string {
	if len(c.sets) == 2 {
		return "q2"
	}
	return "abs_m"
}

// finishSegment scores the running assignment and starts the next one, or
// ends the tuning (cut: the burn-in ends before its budget is spent).
func (c *Chain) finishSegment(cut bool) {
	t := c.tn
	s := &t.st
	R := len(c.betas)
	t.timed(func() {
		a := Assignment{Cycles: slices.Clone(s.Plan[s.Seg]), Rounds: s.Rounds, MeasuredRounds: s.Meas, Steps: c.done - s.Start,
			ModelledSeconds: s.Ns * 1e-9, Traversals: s.Trav, Cut: cut}
		a.Label = label(a.Cycles)
		a.Slow, a.Energy = batchScore(&s.Slow[R-1], s.Ns), batchScore(&s.Energy[R-1], s.Ns)
		a.TripsKnown = s.Trav >= MinTraversals
		if s.Ns > 0 {
			a.RoundTripsPerCPUSecond = float64(max(s.Trav, MinTraversals)) / 2 / (s.Ns * 1e-9)
		}
		rs := make([]RungScore, R)
		for k := range rs {
			rs[k] = RungScore{Slow: batchScore(&s.Slow[k], s.RungNs[k]), Energy: batchScore(&s.Energy[k], s.RungNs[k]), ModelledSeconds: s.RungNs[k] * 1e-9}
		}
		s.Done = append(s.Done, a)
		s.RungScore = append(s.RungScore, rs)
	})
	s.Total += s.Spent
	next := s.Seg + 1
	if !cut && next == len(t.cfg.Candidates) && next == len(s.Plan) {
		var per [][2]int
		t.timed(func() { per = c.perRung() })
		if !slices.ContainsFunc(s.Plan, func(p [][2]int) bool { return slices.Equal(p, per) }) {
			s.Plan = append(s.Plan, per)
		}
	}
	switch {
	case cut:
		c.finishTuning("burn-in")
	case next < len(s.Plan):
		c.startSegment(next)
	default:
		c.finishTuning("budget")
	}
}

// perRung is the assignment that gives each rung the candidate its own
// slow observable preferred among those run at every rung (see better:
// by the rung's ESS per modelled CPU-second of its own members; the cheap
// cycle where none is shown better).
func (c *Chain) perRung() [][2]int {
	s := &c.tn.st
	cands := c.tn.cfg.Candidates
	out := make([][2]int, len(c.betas))
	for k := range out {
		best := 0
		for i := 1; i < min(len(cands), len(s.RungScore)); i++ {
			if cmpScore(s.RungScore[i][k].Slow, s.RungScore[best][k].Slow) > 0 {
				best = i
			}
		}
		out[k] = cands[best]
	}
	return out
}

// finishTuning chooses the assignment (see better), gives it to every
// member and records the choice.
func (c *Chain) finishTuning(ended string) {
	t := c.tn
	s := &t.st
	var res *Tuning
	t.timed(func() { res = c.choose(ended) })
	s.Phase, s.Res = tuneDone, res
	table := uniform(t.cfg.Candidates[0], len(c.betas))
	if res.Chosen >= 0 {
		table = res.Assignments[res.Chosen].Cycles
	}
	c.setTable(table)
}

// timed runs f and adds its thread CPU to the tuner's analysis time.
func (t *tuner) timed(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := topology.ThreadID()
	c0 := topology.ThreadCPU(tid)
	f()
	t.analysis += topology.ThreadCPU(tid) - c0
}

// TunePhase says where the cycle tuner is: TuneOff (no Config.Tune),
// TuneCheap (the cheap cycle everywhere, before the tuning), TuneRunning
// or TuneDone.
func (c *Chain) TunePhase() int {
	if c.tn == nil {
		return TuneOff
	}
	return c.tn.st.Phase + 1
}

// TunePhase's values.
const (
	TuneOff = iota
	TuneCheap
	TuneRunning
	TuneDone
)

// Tuning is what the cycle tuner chose (nil before it finished or without
// Config.Tune).
func (c *Chain) Tuning() *Tuning {
	if c.tn == nil || c.tn.st.Res == nil {
		return nil
	}
	x := *c.tn.st.Res
	x.AnalysisCPUSeconds = c.tn.analysis
	return &x
}

// batchCap is the batch means a trace keeps (between batchCap and twice
// as many once its batches have grown): Sokal's window then resolves a
// tau up to about a fifth of the trace, as on the whole trace, in O(1)
// memory however long the window.
const batchCap = 256
