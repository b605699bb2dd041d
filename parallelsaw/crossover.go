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
// so P = 2 wins when FlipUnits > 2c/a. `sardonics bench --only parallel`
// measures the speedup on both sides of the line and says whether this
// rule agrees (results/parallel-speedup holds the measurement that set
// it).
const MinFlipUnits = 2048

// Pays reports whether P sections are expected to beat the serial dense
// engine on a V x H RBM (the cost model above).
func Pays(v, h, P int) bool { return P >= 2 && FlipUnits(v, h) >= MinFlipUnits }
