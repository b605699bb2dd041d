package replica

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"sardonics/diag"
	"sardonics/rng"
	"sardonics/sampler"
	"sardonics/topology"
)

// Cycler is a member whose kernel is a cycle of A Metropolis sweeps and M
// SARDONICS moves per step, held per inverse temperature (hybrid.Chain):
// SetCycles gives the table, after which SetBeta also switches the cycle,
// and Parts gives each component's counters.
type Cycler interface {
	sampler.Tempered
	SetCycles(betas []float64, cycles [][2]int) error
	Parts() (metropolis, sardonics sampler.Stats)
}

// CycleCosts are the constants of TuneCycles's cost model, in nanoseconds
// of CPU: a stretch of a hybrid chain that proposed s Metropolis flips (N
// per sweep), flipped f bits in SARDONICS walks and ran w steps of a cycle
// with both components costs
//
//	Sweep s + Flip f + Switch N w
//
// (Switch covers bringing each component to the other's spins, a Reset of
// the Metropolis chain and a flip or Reset of the SARDONICS engine, once
// each per step). MeasureCycleCosts measures them on the model at hand.
type CycleCosts struct {
	Sweep  float64 `json:"sweep_ns_per_bit"`  // per bit of a Metropolis sweep
	Flip   float64 `json:"flip_ns_per_bit"`   // per bit a SARDONICS walk flips
	Switch float64 `json:"switch_ns_per_bit"` // per bit per step of a cycle with both components
}

// DefaultCycleCosts are fixed constants for a caller that wants the same
// choice on every machine: MeasureCycleCosts on this project's 2-core VM
// (frustrated2d:L=60 and L=12, spinglass3d:L=9; auto engines) gave Sweep
// 6.5 to 7.6 ns, Flip 170 to 220 ns (a SARDONICS flip costs about 25
// Metropolis flips, as the README's tables say) and Switch 3 to 16 ns at
// beta 2 but 36 to 42 at beta 0.3 (hot spins differ in more bits at a
// switch, and the SARDONICS engine is Reset); Switch is taken between.
var DefaultCycleCosts = CycleCosts{Sweep: 7, Flip: 190, Switch: 25}

func (k CycleCosts) check() error {
	for _, v := range []float64{k.Sweep, k.Flip, k.Switch} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("replica: cycle costs %+v (expected finite ns >= 0)", k)
		}
	}
	if !(k.Sweep > 0 && k.Flip > 0) {
		return fmt.Errorf("replica: cycle costs %+v (a sweep and a flip must cost something)", k)
	}
	return nil
}

// ns is the modelled cost of a stretch (see CycleCosts).
func (k CycleCosts) ns(sweepBits, flips, switchSteps int64, n int) float64 {
	return k.Sweep*float64(sweepBits) + k.Flip*float64(flips) + k.Switch*float64(n)*float64(switchSteps)
}

// CandidateCycles are the cycles a tuner tries by default, k being the
// SARDONICS moves that flip about N bits (hybrid.DefaultCycle's M): pure
// Metropolis 1:0, pure SARDONICS 0:k, a sweep with a quarter of that
// 1:k/4, and the default mixture 1:k (duplicates left out).
func CandidateCycles(k int) [][2]int {
	k = max(1, k)
	out := [][2]int{{1, 0}, {0, k}}
	for _, c := range [][2]int{{1, max(1, k/4)}, {1, k}} {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// TuneConfig is what TuneCycles tries and for how long.
type TuneConfig struct {
	Candidates [][2]int // cycles {A, M} to compare (A, M >= 0, not both 0)
	// Seconds is each candidate's budget: it runs swap rounds until the
	// members' modelled CPU reaches Seconds (and at least MinRounds
	// rounds); the rounds that spend its first quarter are not measured.
	Seconds float64
	Costs   CycleCosts // the cost model (DefaultCycleCosts, or MeasureCycleCosts's)
}

// MinRounds is the fewest swap rounds a candidate runs, whatever its
// budget.
const MinRounds = 16

// maxRounds stops a candidate whose rounds cost next to nothing (a budget
// far too large for the model).
const maxRounds = 1 << 22

// CycleTuning is what TuneCycles measured and chose, for stats.json.
type CycleTuning struct {
	Candidates [][2]int    `json:"candidates"`
	Seconds    float64     `json:"seconds_per_candidate"` // modelled CPU budget
	Costs      CycleCosts  `json:"costs"`
	Rungs      []RungCycle `json:"rungs"` // hottest first
	// CPUSeconds is all TuneCycles spent: the candidates' rounds on every
	// thread (the caller's, the pool's, the members' own) and the
	// analysis. The runner's trial CPU includes it already.
	CPUSeconds float64 `json:"cpu_seconds"`
	// TunerCPUSeconds is the analysis alone (autocorrelation times and
	// the choice), on the calling thread, as tune.tuner_cpu_seconds.
	TunerCPUSeconds float64 `json:"tuner_cpu_seconds"`
}

// RungCycle is one rung's choice and what each candidate did there.
type RungCycle struct {
	Beta  float64      `json:"beta"`
	Cycle [2]int       `json:"cycle"` // the chosen {A, M}
	Tried []CycleTrial `json:"tried"` // in the order of Candidates
}

// CycleTrial is one candidate at one rung over its measured rounds, all
// sets together.
type CycleTrial struct {
	Rounds int   `json:"rounds"` // swap rounds run (all of them: the first quarter of the budget included)
	Steps  int64 `json:"steps"`  // steps at this rung over the measured rounds
	// Tau is the integrated autocorrelation time of the rung's energy
	// trace, in steps (over sets: steps / the sum of their ESS).
	Tau float64 `json:"tau"`
	// Unreliable marks a trace too short for Sokal's window, or one that
	// never changed: its tau is then a floor (see tauOf).
	Unreliable bool    `json:"unreliable,omitempty"`
	Mean       float64 `json:"energy_mean"`
	SE         float64 `json:"energy_se"` // sqrt(variance tau / steps)
	// Biased marks a mean more than BiasZ standard errors (its own and
	// the median candidate's, combined) from the candidates' median at
	// this rung: the candidate has not sampled the rung's distribution
	// within its budget (a kernel stuck in one basin, whose energy
	// flickers quickly around the basin's: its tau alone looks good).
	// Its ESS is then variance / bias^2, the error being its bias.
	Biased          bool    `json:"biased,omitempty"`
	ESS             float64 `json:"ess"`
	CostPerStep     float64 `json:"cost_per_step_ns"`   // modelled
	ESSPerCPUSecond float64 `json:"ess_per_cpu_second"` // ESS per modelled CPU-second
	variance        float64 // of the energy, all measured steps pooled
}

// BiasZ is how many standard errors from the candidates' median make a
// candidate's mean energy Biased.
const BiasZ = 4

// tuneRun is TuneCycles's record of one candidate's rounds.
type tuneRun struct {
	rounds int    // rounds run with this candidate before the current one
	keep   bool   // the current round is measured
	cyc    [2]int // the candidate
	costs  CycleCosts
	n      int
	rec    [][]rungRec
}

// rungRec is one rung of one set over a candidate's measured rounds.
type rungRec struct {
	e                   []float64 // energy after each step at the rung
	sweepBits, sawFlips int64     // the components' Flips (measured rounds)
	switchSteps         int64     // steps of a cycle with both components (measured rounds)
	ns                  float64   // modelled cost of the current round
}

// TuneReady reports whether TuneCycles may run now: at the end of a round
// (the chain has returned every step it buffered, so that tuning rounds
// come between two of its rounds) and after the ladder's adaptation (no
// rung moves afterwards, so a cycle table keyed by the rungs' betas stays
// right). A runner calls it after each burn-in step until it holds.
func (c *Chain) TuneReady() bool {
	return c.idx == len(c.sets[0].tgtE) && (c.cfg.Adapt == 0 || c.done > int64(c.cfg.Adapt))
}

// TuneCycles chooses each rung's hybrid cycle (issue 24, item 3) and
// freezes it: every member must be a Cycler. Each candidate in turn is
// given to every rung (SetCycles), and the chain runs swap rounds on its
// own clock, swaps included, until the members' modelled CPU reaches
// tc.Seconds: every candidate gets the same CPU, so that a cheap kernel
// runs long enough for a slow decorrelation to be measured. Over the
// rounds after the first quarter of that budget, each rung's energy trace
// (whichever member holds the rung) gives its integrated autocorrelation
// time tau (package diag, Sokal's window), its mean and standard error,
// and the components' counters give its modelled CPU (CycleCosts). A
// candidate whose mean lies more than BiasZ standard errors from the
// median candidate's is Biased, its ESS cut to variance / bias^2. Each
// rung then gets the candidate with the most effective samples per
// CPU-second (ties: the earlier candidate) as a cycle table on every
// member, so that each rung's kernel is one fixed exact cycle whichever
// member holds it. The tuning rounds are burn-in: they are not steps of
// the chain, swaps or round trips are not counted, and the ladder does
// not move. Call it once TuneReady holds; it returns what it measured
// (also in Report().Cycles and in the saved state).
//
// Why this search: the candidates are few (CandidateCycles: 4) and each
// rung's objective is measured directly, so an exhaustive search costs 4
// runs, all rungs at once, and is exact over the candidates; package bo's
// GP with expected improvement would spend a dozen or more evaluations
// per rung learning a surface of 4 points, and its noise model would
// have to absorb tau's estimation error, which is what decides here. The
// rungs share each run: rung k's trace depends on its neighbours' kernels
// only through the swaps, which come on the same clock for every
// candidate, so its score is mostly its own kernel's.
//
// Why modelled cost: measured CPU differs from run to run, and so would a
// choice between two close candidates; the model's counts (flips, steps)
// are the chain's and its constants the caller's, so the same seed and
// constants give the same choice, with any Workers. The constants are
// measured once per machine and model (MeasureCycleCosts) and then kept,
// or fixed (DefaultCycleCosts).
//
// Why tau and the bias check: the energy's ESS is what the runner
// reports, but a kernel stuck in one basin looks fast by its tau alone
// (its energy flickers quickly around the basin's; Metropolis on a cold
// frustrated lattice does this), and a frozen trace has no
// autocorrelation at all (tauOf counts it as one sample). Its mean,
// though, is not the other candidates': the median of the candidates'
// means is a reference that one stuck candidate does not move. When every
// candidate is stuck, the check cannot tell, and the swaps are what moves
// the rung; the rounds keep them for that reason.
func (c *Chain) TuneCycles(tc TuneConfig) (*CycleTuning, error) {
	if len(tc.Candidates) == 0 || !(tc.Seconds > 0) || math.IsInf(tc.Seconds, 0) {
		return nil, fmt.Errorf("replica: tuning %d candidates for %v s each (expected at least 1, for a finite time > 0)", len(tc.Candidates), tc.Seconds)
	}
	for _, cy := range tc.Candidates {
		if cy[0] < 0 || cy[1] < 0 || cy[0] == 0 && cy[1] == 0 {
			return nil, fmt.Errorf("replica: candidate cycle %d:%d (expected sweeps and moves >= 0, not both 0)", cy[0], cy[1])
		}
	}
	if err := tc.Costs.check(); err != nil {
		return nil, err
	}
	if !c.TuneReady() {
		return nil, errors.New("replica: TuneCycles called inside a round or while the ladder still adapts (see TuneReady)")
	}
	var cys []Cycler
	for _, s := range c.sets {
		for _, m := range s.ms {
			cy, ok := m.ch.(Cycler)
			if !ok {
				return nil, errors.New("replica: TuneCycles needs hybrid members (replica.Cycler)")
			}
			cys = append(cys, cy)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := topology.ThreadID()
	cpu0, w0 := topology.ThreadCPU(tid), c.WorkerCPUSeconds()
	defer func() { c.tune = nil }()

	R := len(c.betas)
	res := &CycleTuning{Candidates: slices.Clone(tc.Candidates), Seconds: tc.Seconds, Costs: tc.Costs, Rungs: make([]RungCycle, R)}
	var analysis float64
	table := make([][2]int, R)
	for _, cand := range tc.Candidates {
		for k := range table {
			table[k] = cand
		}
		for _, cy := range cys {
			if err := cy.SetCycles(c.betas, table); err != nil {
				return nil, err
			}
		}
		t := &tuneRun{cyc: cand, costs: tc.Costs, n: c.n, rec: make([][]rungRec, len(c.sets))}
		for i := range t.rec {
			t.rec[i] = make([]rungRec, R)
		}
		c.tune = t
		// The budget is read from the counters after each round, so the
		// number of rounds is the chain's, not the clock's on the wall.
		budget, spent := tc.Seconds*1e9, 0.0
		for t.rounds = 0; t.rounds < maxRounds && (spent < budget || t.rounds < MinRounds); t.rounds++ {
			t.keep = spent >= budget/4 && t.rounds >= MinRounds/4
			c.swapRound()
			c.runRound()
			for _, rs := range t.rec {
				for _, rec := range rs {
					spent += rec.ns
				}
			}
		}
		c.tune = nil
		a0 := topology.ThreadCPU(tid)
		for k := range R {
			tr := c.trial(t, k, tc.Costs)
			tr.Rounds = t.rounds
			res.Rungs[k].Tried = append(res.Rungs[k].Tried, tr)
		}
		analysis += topology.ThreadCPU(tid) - a0
	}
	a0 := topology.ThreadCPU(tid)
	for k := range R {
		score(res.Rungs[k].Tried)
		best := 0
		for i, tr := range res.Rungs[k].Tried {
			if tr.ESSPerCPUSecond > res.Rungs[k].Tried[best].ESSPerCPUSecond {
				best = i
			}
		}
		res.Rungs[k].Beta, res.Rungs[k].Cycle = c.betas[k], tc.Candidates[best]
		table[k] = tc.Candidates[best]
	}
	for _, cy := range cys {
		if err := cy.SetCycles(c.betas, table); err != nil {
			return nil, err
		}
	}
	analysis += topology.ThreadCPU(tid) - a0
	res.TunerCPUSeconds = analysis
	res.CPUSeconds = topology.ThreadCPU(tid) - cpu0 + c.WorkerCPUSeconds() - w0
	c.tuned = res
	return res, nil
}

// Tuning is what TuneCycles chose (nil before it ran).
func (c *Chain) Tuning() *CycleTuning { return c.tuned }

// tuneMember runs member m of set si for one of TuneCycles's rounds on the
// chain's clock, recording its rung's energies and counters when the round
// is measured. Each rung of each set is one job's, so no two jobs write
// the same record.
func (c *Chain) tuneMember(si int, m *member) {
	t := c.tune
	rec := &t.rec[si][m.pos]
	var e *[]float64
	if t.keep {
		e = &rec.e
	}
	cy := m.ch.(Cycler)
	pm, ps := cy.Parts()
	if c.cfg.Work > 0 {
		c.runWork(nil, m, false, e)
	} else {
		for range c.cfg.SwapEvery {
			m.ch.Step()
			if e != nil {
				*e = append(*e, m.ch.Energy())
			}
		}
	}
	qm, qs := cy.Parts()
	bits, flips, sw := qm.Flips-pm.Flips, qs.Flips-ps.Flips, int64(0)
	if t.cyc[0] > 0 && t.cyc[1] > 0 {
		sw = bits / (int64(t.cyc[0]) * int64(t.n)) // steps: each sweeps A times
	}
	rec.ns = t.costs.ns(bits, flips, sw, t.n)
	if t.keep {
		rec.sweepBits += bits
		rec.sawFlips += flips
		rec.switchSteps += sw
	}
}

// trial measures rung k over the measured rounds of t: steps, pooled
// tau (steps over the sets' summed ESS), mean, variance, standard error
// and modelled cost; score sets Biased and the ESS per CPU-second.
func (c *Chain) trial(t *tuneRun, k int, costs CycleCosts) CycleTrial {
	var tr CycleTrial
	var ns, sum, sq float64
	for si := range t.rec {
		rec := &t.rec[si][k]
		n := len(rec.e)
		tr.Steps += int64(n)
		ns += costs.ns(rec.sweepBits, rec.sawFlips, rec.switchSteps, c.n)
		if n == 0 {
			continue
		}
		for _, x := range rec.e {
			sum += x
			sq += x * x
		}
		tau, ok := tauOf(rec.e)
		tr.Unreliable = tr.Unreliable || !ok
		tr.ESS += float64(n) / tau
	}
	if tr.Steps == 0 || tr.ESS == 0 {
		return tr
	}
	n := float64(tr.Steps)
	tr.Mean = sum / n
	tr.variance = max(0, sq/n-tr.Mean*tr.Mean)
	tr.Tau = n / tr.ESS
	tr.SE = math.Sqrt(tr.variance / tr.ESS)
	tr.CostPerStep = ns / n
	return tr
}

// score flags the Biased candidates of one rung and sets every
// candidate's ESS per CPU-second. The reference is the median of the
// candidates' means (with the median standard error), so that one stuck
// candidate among several that agree does not move it.
func score(tried []CycleTrial) {
	var means, ses []float64
	for _, tr := range tried {
		if tr.Steps > 0 && tr.ESS > 0 {
			means, ses = append(means, tr.Mean), append(ses, tr.SE)
		}
	}
	if len(means) == 0 {
		return
	}
	med, seMed := median(means), median(ses)
	for i := range tried {
		tr := &tried[i]
		if tr.Steps == 0 || tr.ESS == 0 {
			continue
		}
		if d := tr.Mean - med; d*d > BiasZ*BiasZ*(tr.SE*tr.SE+seMed*seMed) {
			tr.Biased = true
			tr.ESS = min(tr.ESS, tr.variance/(d*d))
		}
		if ns := tr.CostPerStep * float64(tr.Steps); ns > 0 {
			tr.ESSPerCPUSecond = tr.ESS / (ns * 1e-9)
		}
	}
}

// median of x (x is reordered).
func median(x []float64) float64 {
	slices.Sort(x)
	h := len(x) / 2
	if len(x)%2 == 1 {
		return x[h]
	}
	return (x[h-1] + x[h]) / 2
}

// tauOf is the integrated autocorrelation time of e, and false where the
// estimate is a floor: a trace that never changed (diag's ACF calls it
// uncorrelated, but the chain was frozen: tau is taken as its length, one
// effective sample) or one too short for Sokal's window (tau is at least
// (n-1)/SokalC, since no window up to n-1 satisfied W >= SokalC tau).
// Anticorrelated traces' tau is kept at 0.5 or more: a short trace's
// negative autocorrelations are mostly noise.
func tauOf(e []float64) (float64, bool) {
	n := len(e)
	if n < 2 || slices.Min(e) == slices.Max(e) {
		return float64(max(n, 1)), false
	}
	tau, w := diag.TauInt(e)
	if w >= n-1 {
		return max(tau, float64(n-1)/diag.SokalC), false
	}
	return max(tau, 0.5), true
}

// costSeed makes MeasureCycleCosts's stream, unrelated to any trial's.
const costSeed = 0x636f737473 // "costs"

// MeasureCycleCosts measures CycleCosts on one member that build makes at
// beta from init, on its own stream (no trial's chain is touched): the
// thread CPU of work sweep-equivalents (work N proposed bit changes) of
// pure Metropolis (1:0) gives Sweep, of pure SARDONICS (0:1) Flip, and of
// a sweep with a sweep-equivalent of moves what 1:0 and 0:1 do not explain
// gives Switch; each is the median of 3 alternated repetitions. Measure
// once per machine and model (at the target beta, where the choice
// between the kernels is made) and keep the result: the counts are
// deterministic, the timings are not.
func MeasureCycleCosts(build Builder, beta float64, init []int8, work float64) (CycleCosts, error) {
	if !(work > 0) || math.IsInf(work, 0) {
		return CycleCosts{}, fmt.Errorf("replica: measuring costs over %v sweep-equivalents", work)
	}
	ch, rel, err := build(beta, rng.Sub(costSeed, 0, 0), init)
	if err != nil {
		return CycleCosts{}, err
	}
	defer rel()
	cy, ok := ch.(Cycler)
	if !ok {
		return CycleCosts{}, errors.New("replica: cycle costs need a hybrid chain (replica.Cycler)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := topology.ThreadID()
	n := len(init)
	need := max(1, int64(math.Ceil(work*float64(n))))
	// run gives the stretch of cycle cyc that proposes need bit changes:
	// its CPU in ns, the components' flips and its steps.
	run := func(cyc [2]int) (ns float64, sweepBits, flips, steps int64, err error) {
		if err := cy.SetCycles([]float64{beta}, [][2]int{cyc}); err != nil {
			return 0, 0, 0, 0, err
		}
		cy.Step() // the switch into the cycle is not part of it
		pm, ps := cy.Parts()
		t0 := topology.ThreadCPU(tid)
		for sweepBits+flips < need {
			cy.Step()
			steps++
			qm, qs := cy.Parts()
			sweepBits, flips = qm.Flips-pm.Flips, qs.Flips-ps.Flips
		}
		return (topology.ThreadCPU(tid) - t0) * 1e9, sweepBits, flips, steps, nil
	}
	var sw, fl, sc []float64
	for range 3 {
		ns, bits, _, _, err := run([2]int{1, 0})
		if err != nil {
			return CycleCosts{}, err
		}
		sweep := ns / float64(bits)
		ns, _, flips, steps, err := run([2]int{0, 1})
		if err != nil {
			return CycleCosts{}, err
		}
		flip := ns / float64(flips)
		k := max(1, int(math.Round(float64(n)*float64(steps)/float64(flips))))
		ns, bits, flips, steps, err = run([2]int{1, k})
		if err != nil {
			return CycleCosts{}, err
		}
		sw, fl = append(sw, sweep), append(fl, flip)
		sc = append(sc, max(0, (ns-sweep*float64(bits)-flip*float64(flips))/(float64(steps)*float64(n))))
	}
	med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
	return CycleCosts{Sweep: med(sw), Flip: med(fl), Switch: med(sc)}, nil
}
