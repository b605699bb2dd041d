package replica

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The rung count from the model (sample --replicas auto). Syed,
// Bouchard-Côté, Deligiannidis and Doucet (2021, "Non-reversible parallel
// tempering: a scalable highly parallel MCMC scheme", JRSS-B 84, 321)
// define the local barrier lambda(beta) = E|E(X) - E(X')| / 2, X and X'
// independent draws at beta, and the global communication barrier
//
//	Lambda = int lambda(beta) d beta,
//
// which the sum of the swap rejection rates r_k of any ladder over the
// range tends to as the ladder refines (r_k = lambda Delta beta +
// O(Delta beta^3)); it is a property of the model and the range, not of the
// ladder or the kernel. On a coarse ladder the sum is below Lambda: r_k
// saturates at 1 (for Gaussian energies r_k = erf(x) against the local
// barrier 2x / sqrt(pi), 7% less at r_k = 0.5).
//
// The swaps here alternate the even and the odd pairs deterministically
// (swapRound): that is Syed et al.'s deterministic even-odd scheme (DEO),
// whose index process is non-reversible, and for which they show the
// round-trip rate 1 / (2 + 2 sum_k r_k / (1 - r_k)). With R rungs at equal rejection
// r = Lambda / (R - 1), the CPU per round trip, R / rate = 2 R (n + n
// Lambda - Lambda) / (n - Lambda) with n = R - 1, is least where its
// logarithmic derivative 1 / (n + 1) + (1 + Lambda) / (n (1 + Lambda) -
// Lambda) - 1 / (n - Lambda) vanishes: exactly at n = 2 Lambda, r = 1/2
// (the rule of thumb of Syed et al., about 2 Lambda chains). So R =
// ceil(2 Lambda) + 1. (Reversible PT, a random pair per round, diffuses
// instead: its optimum is the acceptance 0.23 of RungsNeeded, about 1 +
// 1.05 Lambda rungs for Gaussian energies, whose thermodynamic length is
// L = sqrt(pi) Lambda.)

// Barrier is the estimate of the global communication barrier from the
// swap rejection rates of neighbouring rungs: Lambda = sum_k r_k.
func Barrier(rejection []float64) float64 {
	l := 0.0
	for _, r := range rejection {
		if brokenBarrier {
			r = 1 - r
		}
		l += r
	}
	return l
}

// MaxRungs is the most rungs a ladder may have (sample --replicas).
const MaxRungs = 1024

// RungsForBarrier is the rung count of even-odd swaps over a range of
// barrier l: ceil(2 l) + 1, a rejection of at most 1/2 per pair, at least
// 2 (see the comment above Barrier).
func RungsForBarrier(l float64) int {
	if !(l > 0) {
		return 2
	}
	if math.IsInf(l, 0) || l > MaxRungs {
		return MaxRungs + 1
	}
	return max(2, int(math.Ceil(2*l-1e-9))+1)
}

// The pilot's schedule: on each ladder it tries, PilotBurn swap rounds to
// relax from the random start, then PilotRounds whose swaps it counts
// (PilotRounds / 2 proposals per pair). A fixed number of rounds, so that
// the choice depends only on the seed, never on the machine or the run's
// length; the estimate's spread is about sqrt(sum r_k (1 - r_k) /
// (PilotRounds / 2)), 0.25 for 32 rungs at r = 1/2, less than a rung in
// 2 Lambda. The ladders are PilotRungs rungs, then twice as many while the
// last was too coarse (see PilotFine), up to MaxPilotRungs.
const (
	PilotBurn     = 128
	PilotRounds   = 256
	PilotRungs    = 32
	MaxPilotRungs = 256
)

// PilotResult is what a pilot measured on its ladder, over its counted
// rounds.
type PilotResult struct {
	Betas     []float64 // the pilot's ladder, hottest first
	Rejection []float64 // each neighbouring pair's swap rejection rate
	Acc       []int64   // each pair's accepted swaps
	Tries     []int64   // each pair's proposed swaps
	Rounds    int       // swap rounds run, the burn-in's included
	WorkerCPU float64   // CPU seconds of the threads that stepped members besides the caller's
}

// Pilot runs replica exchange on cfg's ladder (cfg.Betas; one set, fixed
// rungs, no cluster move: whatever else cfg asks is dropped) from init for
// burn swap rounds, then counts the swaps of rounds more. r draws the
// swaps; the members' streams derive from it as in New.
func Pilot(cfg Config, build Builder, r *rand.PCG, init []int8, burn, rounds int) (*PilotResult, error) {
	if burn < 0 || rounds < 2 {
		return nil, fmt.Errorf("replica: pilot of %d + %d rounds (expected a burn-in >= 0 and at least 2 counted rounds)", burn, rounds)
	}
	cfg.Adapt, cfg.CountFrom, cfg.Sets, cfg.KeepSpins = 0, 0, 1, false
	cfg.Cluster, cfg.ClusterBetaMin = NoCluster, 0
	c, err := New(cfg, build, r, init)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	R := len(c.betas)
	s := c.sets[0]
	acc0, tries0 := make([]int64, R-1), make([]int64, R-1)
	c.runRound()
	for i := range burn + rounds {
		if i == burn {
			copy(acc0, s.acc)
			copy(tries0, s.tries)
		}
		c.swapRound()
		c.runRound()
	}
	p := &PilotResult{Betas: append([]float64(nil), c.betas...), Rejection: make([]float64, R-1),
		Acc: make([]int64, R-1), Tries: make([]int64, R-1), Rounds: burn + rounds,
		WorkerCPU: c.WorkerCPUSeconds()}
	for k := range p.Rejection {
		p.Acc[k], p.Tries[k] = s.acc[k]-acc0[k], s.tries[k]-tries0[k]
		p.Rejection[k] = 1 - float64(p.Acc[k])/float64(max(1, p.Tries[k]))
	}
	return p, nil
}

// pilotMaxRejection is the rejection of a pair above which a pilot's
// ladder counts as too coarse: the pair's r_k is then well below its
// share of the barrier (r_k = erf(x) saturates: at 0.9 the local barrier
// 2x / sqrt(pi) is 1.31, 46% more), and a gap there hides how much.
const pilotMaxRejection = 0.9

// PilotFine reports whether p's ladder is fine enough for its barrier: at
// least as many rungs as it asks for (so a pair's rejection is at most
// about 1/2, where the sum is within 7% of Lambda for Gaussian energies)
// and no pair rejecting more than pilotMaxRejection.
func PilotFine(p *PilotResult) bool {
	if RungsForBarrier(Barrier(p.Rejection)) > len(p.Betas) {
		return false
	}
	for _, r := range p.Rejection {
		if r > pilotMaxRejection {
			return false
		}
	}
	return true
}

// AutoRungs is the rung count sample --replicas auto chose, and why
// (summary.json and stats.json: replica.replicas_auto).
type AutoRungs struct {
	Rungs int `json:"rungs"`
	// Barrier is the pilot's sum of swap rejection rates, the estimate of
	// the global communication barrier Lambda.
	Barrier float64 `json:"barrier"`
	// RungsNeeded is the rungs the pilot's swap acceptances ask for at
	// the reversible optimum, swap acceptance 0.23 (RungsNeeded of their
	// thermodynamic length sum_k 2 erfcinv(a_k), a pair that never
	// accepted counted at a_k = 1 / (2 tries)): the check for gaps, where
	// r_k saturates at 1 and the sum misses part of the barrier. (Not the
	// energy spreads: the pilot's coldest rungs may still be relaxing, and
	// the drift inflates them.)
	RungsNeeded int `json:"rungs_needed"`
	// The pilot: the sampler it ran, the rungs of its last ladder (from
	// the run's beta-min to its beta, geometric), the swap rounds of all
	// its ladders (burn-ins included) and their CPU seconds.
	PilotSampler    string  `json:"pilot_sampler"`
	PilotRungs      int     `json:"pilot_rungs"`
	PilotRounds     int     `json:"pilot_rounds"`
	PilotCPUSeconds float64 `json:"pilot_cpu_seconds"`
	// Rule says how Rungs follows from Barrier (and RungsNeeded).
	Rule string `json:"rule"`
	// Betas is the ladder of Rungs rungs, hottest first, at equal shares
	// of the pilot's cumulative barrier (BarrierLadder): the run's ladder
	// (an adaptive one starts from it).
	Betas []float64 `json:"betas,omitempty"`
}

// BarrierLadder is the ladder of R rungs from betas[0] to betas[P-1] that
// splits the cumulative barrier of a pilot ladder betas (P rungs, hottest
// first) with pair rejections rej into R - 1 equal shares: Syed et al.'s
// schedule (2021, section 5.1), beta_j = Lambda^-1(j Lambda / (R - 1)),
// with Lambda(beta) the sum of the rejections up to beta, linear in beta
// within each pilot pair. Every pair of the new ladder then rejects
// about Lambda / (R - 1), where a geometric ladder spends rungs unevenly
// (spinglass2d:L=64 at T = 0.2, 74 geometric rungs: pairs accepting 0.26
// in the middle, 0.85 at the cold end). A pair that never rejected counts
// a millionth, so that the ladder stays strictly increasing.
func BarrierLadder(betas, rej []float64, R int) []float64 {
	P := len(betas)
	if P < 2 || len(rej) != P-1 || R < 2 {
		return nil
	}
	c := make([]float64, P)
	for k, r := range rej {
		c[k+1] = c[k] + max(r, 1e-6)
	}
	out := make([]float64, R)
	k := 0
	for j := range out {
		t := c[P-1] * float64(j) / float64(R-1)
		for k < P-2 && c[k+1] < t {
			k++
		}
		f := (t - c[k]) / (c[k+1] - c[k])
		out[j] = betas[k] + min(1, max(0, f))*(betas[k+1]-betas[k])
	}
	out[0], out[R-1] = betas[0], betas[P-1]
	return out
}

// ChooseRungs is the rung count for the pilot p: RungsForBarrier of its
// barrier, or the rungs its acceptances need at the reversible optimum
// (AutoRungs.RungsNeeded) where that is more, at most MaxRungs; Rule says
// which and why.
func ChooseRungs(p *PilotResult) *AutoRungs {
	l := Barrier(p.Rejection)
	a := &AutoRungs{Barrier: l, PilotRungs: len(p.Betas), PilotRounds: p.Rounds}
	a.Rungs = RungsForBarrier(l)
	a.Rule = fmt.Sprintf("2 x barrier + 1 = %d, the optimum of non-reversible (even/odd) swaps: 1/2 rejection per pair (Syed et al. 2021)", a.Rungs)
	if la, _, ok := lengthFromAcceptance(p.Acc, p.Tries); ok {
		a.RungsNeeded = RungsNeeded(la)
	}
	if a.RungsNeeded > a.Rungs {
		a.Rule = fmt.Sprintf("the pilot's swap acceptances need %d rungs for acceptance 0.23, more than 2 x barrier + 1 = %d (gaps the barrier's sum misses): took %d", a.RungsNeeded, a.Rungs, a.RungsNeeded)
		a.Rungs = a.RungsNeeded
	}
	if !PilotFine(p) {
		a.Rule += fmt.Sprintf("; the pilot's %d rungs were too coarse for its barrier, which is then a lower bound", len(p.Betas))
	}
	if a.Rungs > MaxRungs {
		a.Rule += fmt.Sprintf("; capped at %d", MaxRungs)
		a.Rungs = MaxRungs
	}
	a.Betas = BarrierLadder(p.Betas, p.Rejection, a.Rungs)
	a.Rule += "; rungs at equal shares of the barrier"
	return a
}

// Auto runs pilots (Pilot, PilotBurn + PilotRounds rounds each) on
// geometric ladders from lo to hi of PilotRungs rungs, then twice as many
// while the last was too coarse (PilotFine), up to MaxPilotRungs, and
// chooses the rung count from the last (ChooseRungs). base gives the
// schedule (SwapEvery or Work) and Workers; stream(rungs) is the pilot's
// random stream for a ladder of that many rungs, which also draws its
// random starting state of n spins. threadCPU, if not nil, is the calling
// thread's CPU clock: PilotCPUSeconds is then its time plus the workers'.
func Auto(base Config, lo, hi float64, build Builder, stream func(rungs int) *rand.PCG, n int, threadCPU func() float64) (*AutoRungs, error) {
	rounds, cpu := 0, 0.0
	if threadCPU != nil {
		cpu = -threadCPU()
	}
	for p := PilotRungs; ; p *= 2 {
		r := stream(p)
		init := make([]int8, n)
		for i := range init {
			init[i] = int8(2*(r.Uint64()&1)) - 1
		}
		cfg := base
		cfg.Betas = Geometric(lo, hi, p)
		res, err := Pilot(cfg, build, r, init, PilotBurn, PilotRounds)
		if err != nil {
			return nil, err
		}
		rounds += res.Rounds
		cpu += res.WorkerCPU
		if PilotFine(res) || 2*p > MaxPilotRungs {
			a := ChooseRungs(res)
			a.PilotRounds = rounds
			if threadCPU != nil {
				a.PilotCPUSeconds = math.Round((cpu+threadCPU())*1e4) / 1e4
			}
			return a, nil
		}
	}
}
