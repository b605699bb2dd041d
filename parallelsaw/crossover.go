package parallelsaw

// FlipUnits is the mean number of units a flip of a V x H RBM updates when
// flips fall on each layer in proportion to its size: a visible flip
// updates the H hidden units and a hidden flip the V visible ones, so
// (V H + H V) / (V + H) = 2 V H / (V + H).
func FlipUnits(v, h int) float64 {
	if v+h == 0 {
		return 0
	}
	return 2 * float64(v) * float64(h) / float64(v+h)
}

// MinFlipUnits is the crossover of `--engine auto`: the partitioned
// engine runs, with P >= 2 sections, only on an RBM whose FlipUnits reach
// it. The cost model: the serial dense engine pays about a per unit of a
// flip, P sections pay a/P per unit plus a hand-off of about c per flip,
// so P = 2 wins when FlipUnits > 2c/a. Measured with the lockstep walks
// (scripts/parallel-trials.sh, whole trials, medians of 3, the quiet
// 2-core VM, 2026-11-29; results/parallel-speedup/crossover-2core.md):
// P = 2 over the serial engine at 611 units (784 x 500) 1.04x, 768 units
// 1.10x, 1024 1.15x, 1536 1.25x, 2048 1.31x; `sardonics bench --only
// parallel` (engine only, no build) has 784 x 500 at 0.76x and 2048 x 2048
// at 1.28x. So the crossover is the smallest size both measures win at.
// (Before the lockstep walks, a 16-core Xeon had 784 x 500 at 0.72x and
// 2048 x 2048 at 0.95-1.08x: results/scaling, results/parallel-speedup.)
// `sardonics bench --only parallel` (scripts/parallel-speedup.sh) says
// whether this rule agrees on the machine at hand; the run-time policy
// (internal/handoff) falls back to one thread where two do not pay.
const MinFlipUnits = 1024

// Pays reports whether P sections are expected to beat the serial dense
// engine on a V x H RBM (the cost model above).
func Pays(v, h, P int) bool { return P >= 2 && FlipUnits(v, h) >= MinFlipUnits }

// MinDenseSpins is the crossover of `--engine auto` on dense models (SK
// glasses, dense QUBOs): the partitioned DenseEngine runs, with P >= 2
// sections, only on a model of at least MinDenseSpins spins. A flip
// updates every spin's field and weight, so the cost model above holds
// with N units per flip, plus the pick in the owning section's table.
// Measured as MinFlipUnits (crossover-2core.md): P = 2 over the serial
// denseising engine at N = 512 0.84x, 1024 0.91x, 2048 1.27x, 4096 1.19x,
// 8192 1.5-1.6x.
const MinDenseSpins = 2048

// PaysDense reports whether P sections are expected to beat the serial
// denseising engine on a dense model of n spins.
func PaysDense(n, P int) bool { return P >= 2 && n >= MinDenseSpins }
