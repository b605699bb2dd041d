package saw

// Cost is the modelled CPU time of SARDONICS steps on an engine: Step per
// step (drawing the move, the acceptance test, recording the energy), Flip
// per proposed flip (walk and reverse probabilities) and Undo per flip of a
// rejected move, in seconds. The tuner's ess reward (package tune) scores
// settings with it instead of measured CPU time, so that the same seed
// gives the same rewards, choices and policy.
type Cost struct{ Step, Flip, Undo float64 }

// Seconds is the modelled CPU time of one step that proposes flips flips,
// of which rejected belong to rejected moves.
func (c Cost) Seconds(flips, rejected float64) float64 {
	return c.Step + c.Flip*flips + c.Undo*rejected
}

// Costed is an engine with a measured cost model. Every engine of the
// product has one (a conformance check in its package); the tuner falls
// back to CostTree for one without.
type Costed interface {
	Cost() Cost
}

// Cost models by engine, fitted by least squares (in relative error) to
// the CPU seconds per step of fixed-length walks, kl = ku = k for k = 1, 2,
// 4, ..., 64 at two bias settings (gl/gh = 0.95/1.05 and 0.89/1.15, which
// move the acceptance rate), the median of 3 runs each, measured with
//
//	sardonics sample --model MODEL --T 1 --sampler sardonics --engine E \
//	  --params kl=k,ku=k,gl=..,gh=.. --steps 20000 --burn 100 --trials 1 --threads 1
//
// (scripts/cost-model.sh; the parallel engines count as their serial
// forms: their flips cost the same CPU, spread over threads). Bucket, tree
// and the RBM engine on a 2-core AMD
// EPYC VM (Go 1.26, shared with other work): bucket on
// frustrated2d:L=60,seed=1 (T = 1) and spinglass3d:L=9,seed=1 (beta = 1),
// rms error 5%; tree on frustrated2d:L=60,seed=1 and chimera:M=4,N=4,T=4,
// seed=1 (T = 1), rms 14%; the RBM engine on rbm-random:V=784,H=500,seed=1,
// scale=0.1 (beta = 1, 2000 steps), rms 12%; the dense Ising engine:
// DenseIsingCost. Only their ratios steer the tuner; the absolute scale
// sets the reward's offset.
var (
	CostBucket = Cost{Step: 0.64e-6, Flip: 0.129e-6, Undo: 0.061e-6}
	CostTree   = Cost{Step: 0.44e-6, Flip: 0.153e-6, Undo: 0.027e-6}
	CostDense  = Cost{Step: 9.5e-6, Flip: 1.45e-6, Undo: 1.6e-6}
)

// DenseIsingCost is the cost model of the dense Ising engine (package
// denseising: SK glasses, dense QUBOs) on n spins, whose steps and flips
// each cost a pass over a row of the matrix, O(n): fitted per variable to
// sk:N=1000,seed=1 and a 400-variable dense QUBO of two-decimal
// coefficients at T = 1, 10^4 steps a run (scripts/cost-model.sh dense,
// results/cost-model; a 2-core Intel Xeon VM), rms error 9.1% (4.1% and
// 9.0% fitted to each alone). A rejected move's undo costs about two
// flips (it flips its rows back), where the tree's costs a fifth of one:
// the tree's model, which the tuner used here before, undercounts long
// rejected walks by far.
func DenseIsingCost(n int) Cost {
	f := float64(n)
	return Cost{Step: 1.26e-9 * f, Flip: 0.608e-9 * f, Undo: 1.09e-9 * f}
}
