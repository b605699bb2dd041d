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

// CycleCosts are the constants of the cycle tuners' cost model
// (CycleTuner, TuneChain), in nanoseconds
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

// TuneConfig is what TuneChain, a single hybrid chain's tuner, tries and
// for how long (replica exchange's is CycleTuner).
type TuneConfig struct {
	Candidates [][2]int // cycles {A, M} to compare (A, M >= 0, not both 0)
	// Seconds is each candidate's budget: it runs steps until the chain's
	// modelled CPU reaches Seconds (and at least MinRounds steps); the
	// steps that spend its first quarter are not measured.
	Seconds float64
	Costs   CycleCosts // the cost model (DefaultCycleCosts, or MeasureCycleCosts's)
	// Drop > 1 makes the search a successive halving (see TuneChain):
	// every candidate first gets a quarter of Seconds, a candidate whose
	// ESS per CPU-second at a rung is below the best's / Drop there is
	// dropped at that rung, and only the survivors get the rest. 0: every
	// candidate runs its whole budget at every rung.
	Drop float64
}

// DefaultDrop is the factor by which a candidate must trail the best at a
// rung after the first quarter of its budget to be dropped there.
const DefaultDrop = 2

// MinRounds is the fewest steps a candidate runs in TuneChain, whatever
// its budget.
const MinRounds = 16

// maxRounds stops a candidate whose rounds cost next to nothing (a budget
// far too large for the model).
const maxRounds = 1 << 22

// CycleTuning is what TuneChain measured and chose, for stats.json.
type CycleTuning struct {
	Candidates [][2]int    `json:"candidates"`
	Seconds    float64     `json:"seconds_per_candidate"` // modelled CPU budget
	Costs      CycleCosts  `json:"costs"`
	Rungs      []RungCycle `json:"rungs"` // hottest first
	// CPUSeconds is all TuneChain spent: the candidates' steps on every
	// thread (the caller's, the chain's own) and the analysis. The
	// runner's trial CPU includes it already.
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
	Biased bool `json:"biased,omitempty"`
	// Dropped marks a candidate that trailed the best at this rung by
	// more than TuneConfig.Drop after the first quarter of the budget
	// and ran no further there.
	Dropped         bool    `json:"dropped,omitempty"`
	ESS             float64 `json:"ess"`
	CostPerStep     float64 `json:"cost_per_step_ns"`   // modelled
	ESSPerCPUSecond float64 `json:"ess_per_cpu_second"` // ESS per modelled CPU-second
	variance        float64 // of the energy, all measured steps pooled
}

// BiasZ is how many standard errors from the candidates' median make a
// candidate's mean energy Biased.
const BiasZ = 4

// tuneAcc is one candidate at one rung over all the runs that gave it the
// rung: what trialOf needs.
type tuneAcc struct {
	rounds           int
	steps            int64
	ess, sum, sq, ns float64
	unreliable       bool
}

// check says what is wrong with tc, if anything.
func (tc TuneConfig) check() error {
	if len(tc.Candidates) == 0 || !(tc.Seconds > 0) || math.IsInf(tc.Seconds, 0) {
		return fmt.Errorf("replica: tuning %d candidates for %v s each (expected at least 1, for a finite time > 0)", len(tc.Candidates), tc.Seconds)
	}
	for _, cy := range tc.Candidates {
		if cy[0] < 0 || cy[1] < 0 || cy[0] == 0 && cy[1] == 0 {
			return fmt.Errorf("replica: candidate cycle %d:%d (expected sweeps and moves >= 0, not both 0)", cy[0], cy[1])
		}
	}
	if err := tc.Costs.check(); err != nil {
		return err
	}
	if !(tc.Drop == 0 || tc.Drop > 1) || math.IsInf(tc.Drop, 0) {
		return fmt.Errorf("replica: dropping candidates %v times worse than the best (expected 0, or a finite factor > 1)", tc.Drop)
	}
	return nil
}

// search is TuneChain's search (R = 1 there; it was written for R rungs
// at once): run(pick, budget, accs) runs rung k's candidate pick[k] until
// the modelled CPU reaches budget ns, adds each rung's measurements to
// accs[k][pick[k]] and returns the CPU its analysis took; clock is the
// thread's CPU. It returns each rung's choice and trials (without the
// beta) and the CPU of the analysis.
func search(tc TuneConfig, R int, run func(pick []int, budget float64, accs [][]tuneAcc) (float64, error), clock func() float64) ([]RungCycle, float64, error) {
	nc := len(tc.Candidates)
	accs := make([][]tuneAcc, R)
	for k := range accs {
		accs[k] = make([]tuneAcc, nc)
	}
	var analysis float64
	pick := make([]int, R) // each rung's candidate in the next run
	do := func(budget float64) error {
		a, err := run(pick, budget, accs)
		analysis += a
		return err
	}
	// tried scores every candidate at rung k from what it measured.
	tried := func(k int) []CycleTrial {
		out := make([]CycleTrial, nc)
		for i := range out {
			out[i] = accs[k][i].trial()
		}
		score(out)
		return out
	}
	first := tc.Seconds * 1e9
	if tc.Drop > 0 {
		first /= 4
	}
	for ci := range nc {
		for k := range pick {
			pick[k] = ci
		}
		if err := do(first); err != nil {
			return nil, 0, err
		}
	}
	dropped := make([][]bool, R)
	for k := range dropped {
		dropped[k] = make([]bool, nc)
	}
	if tc.Drop > 0 {
		a0 := clock()
		alive := make([][]int, R) // best first
		runs := 0
		for k := range R {
			tr := tried(k)
			best := 0
			for i := range tr {
				if tr[i].ESSPerCPUSecond > tr[best].ESSPerCPUSecond {
					best = i
				}
			}
			alive[k] = []int{best}
			for i := range tr {
				switch {
				case i == best:
				case tr[best].Unreliable || tr[best].Biased || !(tr[i].ESSPerCPUSecond*tc.Drop < tr[best].ESSPerCPUSecond):
					alive[k] = append(alive[k], i) // not clearly worse
				default:
					dropped[k][i] = true
				}
			}
			if brokenDrop && nc > 1 {
				alive[k] = alive[k][:0]
				for i := range nc {
					dropped[k][i] = i == best
					if i != best {
						alive[k] = append(alive[k], i)
					}
				}
			}
			runs = max(runs, len(alive[k]))
		}
		analysis += clock() - a0
		// The survivors get the rest of the budget: run j gives rung k
		// its j-th survivor, or its best where it has fewer. Where every
		// rung has one survivor, there is nothing left to compare.
		for j := 0; runs > 1 && j < runs; j++ {
			comparing := 0
			for k := range pick {
				pick[k] = alive[k][0]
				if j < len(alive[k]) {
					pick[k] = alive[k][j]
				}
				if len(alive[k]) > 1 {
					comparing++
				}
			}
			if err := do((tc.Seconds*1e9 - first) * max(0.25, float64(comparing)/float64(R))); err != nil {
				return nil, 0, err
			}
		}
	}
	a0 := clock()
	rungs := make([]RungCycle, R)
	for k := range R {
		rungs[k].Tried = tried(k)
		best := -1
		for i := range rungs[k].Tried {
			tr := &rungs[k].Tried[i]
			tr.Rounds, tr.Dropped = accs[k][i].rounds, dropped[k][i]
			if !tr.Dropped && (best < 0 || tr.ESSPerCPUSecond > rungs[k].Tried[best].ESSPerCPUSecond) {
				best = i
			}
		}
		rungs[k].Cycle = tc.Candidates[best]
	}
	return rungs, analysis + clock() - a0, nil
}

// TuneChain chooses a single hybrid chain's cycle (issue 24): each
// candidate in turn runs on ch (n bits, at its inverse temperature beta),
// steps until ch's modelled CPU reaches the budget (and at least
// MinRounds steps), and its energy over the steps after the first
// quarter of the budget gives its integrated autocorrelation time (Sokal's
// window), mean and standard error; a candidate whose mean lies more than
// BiasZ standard errors from the median candidate's is Biased (a kernel
// stuck in one basin flickers quickly around the basin's energy, and its
// tau alone looks good), its ESS cut to variance / bias^2; the candidate
// with the most effective samples per modelled CPU-second is chosen.
// Modelled costs (CycleCosts) make the choice the same for the same seed
// on any machine. With tc.Drop > 1 the search is a successive halving
// (Jamieson & Talwalkar 2016, AISTATS; Li et al. 2018, JMLR 18(185)):
// every candidate first runs a quarter of tc.Seconds, one whose ESS per
// CPU-second is below the best's / Drop is dropped (unless the best's own
// estimate is Unreliable or Biased), and the survivors run the rest. ch is
// left running the chosen cycle, as a cycle table of one entry at beta
// (which its state saves). The steps are burn-in, not the chain's: the
// caller records none of them. The result's one rung holds the choice and
// the trials; its CPU times are the calling thread's and ch's workers'.
// (Replica exchange chooses its rungs' cycles by slow observables over a
// long window instead: CycleTuner.)
func TuneChain(ch Cycler, beta float64, n int, tc TuneConfig) (*CycleTuning, error) {
	if err := tc.check(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := topology.ThreadID()
	clock := func() float64 { return topology.ThreadCPU(tid) }
	workers := func() float64 { return sampler.WorkerCPUSeconds(ch) }
	cpu0, w0 := clock(), workers()
	run := func(pick []int, budget float64, accs [][]tuneAcc) (float64, error) {
		cyc := tc.Candidates[pick[0]]
		if err := ch.SetCycles([]float64{beta}, [][2]int{cyc}); err != nil {
			return 0, err
		}
		var e []float64
		var bits, flips, sw int64
		spent, steps := 0.0, 0
		for ; steps < maxRounds && (spent < budget || steps < MinRounds); steps++ {
			keep := spent >= budget/4 && steps >= MinRounds/4
			pm, ps := ch.Parts()
			ch.Step()
			qm, qs := ch.Parts()
			b, f, w := qm.Flips-pm.Flips, qs.Flips-ps.Flips, int64(0)
			if cyc[0] > 0 && cyc[1] > 0 {
				w = 1
			}
			spent += tc.Costs.ns(b, f, w, n)
			if keep {
				e = append(e, ch.Energy())
				bits, flips, sw = bits+b, flips+f, sw+w
			}
		}
		a0 := clock()
		accs[0][pick[0]].add(e, tc.Costs.ns(bits, flips, sw, n), steps)
		return clock() - a0, nil
	}
	rungs, analysis, err := search(tc, 1, run, clock)
	if err != nil {
		return nil, err
	}
	rungs[0].Beta = beta
	if err := ch.SetCycles([]float64{beta}, [][2]int{rungs[0].Cycle}); err != nil {
		return nil, err
	}
	return &CycleTuning{Candidates: slices.Clone(tc.Candidates), Seconds: tc.Seconds, Costs: tc.Costs, Rungs: rungs,
		TunerCPUSeconds: analysis, CPUSeconds: clock() - cpu0 + workers() - w0}, nil
}

// add adds one trace e of a candidate at a rung, its modelled cost ns and
// the rounds it ran (the steps of a single chain) to a.
func (a *tuneAcc) add(e []float64, ns float64, rounds int) {
	a.rounds += rounds
	n := len(e)
	a.steps += int64(n)
	a.ns += ns
	if n == 0 {
		return
	}
	for _, x := range e {
		a.sum += x
		a.sq += x * x
	}
	tau, ok := diag.TauOrFloor(e)
	a.unreliable = a.unreliable || !ok
	a.ess += float64(n) / tau
}

// trial is what a candidate measured at a rung: steps, pooled tau (steps
// over the summed ESS), mean, variance, standard error and modelled cost;
// score sets Biased and the ESS per CPU-second.
func (a *tuneAcc) trial() CycleTrial {
	tr := CycleTrial{Steps: a.steps, ESS: a.ess, Unreliable: a.unreliable}
	if tr.Steps == 0 || tr.ESS == 0 {
		return tr
	}
	n := float64(tr.Steps)
	tr.Mean = a.sum / n
	tr.variance = max(0, a.sq/n-tr.Mean*tr.Mean)
	tr.Tau = n / tr.ESS
	tr.SE = math.Sqrt(tr.variance / tr.ESS)
	tr.CostPerStep = a.ns / n
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
