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
// so P = 2 wins when FlipUnits > 2c/a. The value is the smallest size
// measured to win: results/scaling (16-core Xeon, whole trials at P = 2)
// has 784 x 500 (611 units) at 0.72x and 4096 x 4096 (4096 units) at
// 1.18x the serial dense engine; nothing between was measured there. On a
// loaded 2-core machine P = 2 loses at every size (the worker gets no
// CPU). `sardonics bench --only parallel` (scripts/parallel-speedup.sh)
// measures 784 x 500, 2048 x 2048 and 4096 x 4096 and says whether this
// rule agrees on the machine at hand.
const MinFlipUnits = 4096

// Pays reports whether P sections are expected to beat the serial dense
// engine on a V x H RBM (the cost model above).
func Pays(v, h, P int) bool { return P >= 2 && FlipUnits(v, h) >= MinFlipUnits }

// MinDenseSpins is the crossover of `--engine auto` on dense models (SK
// glasses, dense QUBOs): the partitioned DenseEngine runs, with P >= 2
// sections, only on a model of at least MinDenseSpins spins. A flip
// updates every spin's field and weight, so the cost model above holds
// with N units per flip, plus the coordinator's pick in the owning
// section's table. Not yet measured on a many-core machine: the value is
// an estimate from the serial engine's cost on a 2-core machine (about
// 2.3 us per flip at N = 1000, 11 us at N = 8192, 1.3 to 1.4 ns per spin)
// against a hand-off and pick of a few hundred ns, with the RBM's margin;
// `sardonics bench --only parallel` (sk:N=8192) and
// scripts/parallel-speedup.sh say whether it holds.
const MinDenseSpins = 4096

// PaysDense reports whether P sections are expected to beat the serial
// denseising engine on a dense model of n spins.
func PaysDense(n, P int) bool { return P >= 2 && n >= MinDenseSpins }
