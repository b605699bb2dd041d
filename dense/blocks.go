package dense

import "sardonics/saw"

// BlockBits is the size of the blocks whose weight sums both RBM engines
// keep: a flip re-adds one block and the block sums of a layer instead of
// the whole layer, and a draw scans block sums before weights.
const BlockBits = 64

// NumBlocks is the number of blocks of a layer of n bits.
func NumBlocks(n int) int { return (n + BlockBits - 1) / BlockBits }

// BlockWeights is Weights block by block over one layer: it fills w0, w1
// and the block sums bs0, bs1 (NumBlocks(len(w0)) each) and returns the
// layer's sums (of the block sums, in order).
func BlockWeights(wf saw.Weight, g0, g1 float64, s []int8, f []float64, av []bool, w0, w1, bs0, bs1 []float64) (z0, z1 float64) {
	for lo, bl := 0, 0; lo < len(w0); lo, bl = lo+BlockBits, bl+1 {
		hi := min(lo+BlockBits, len(w0))
		bs0[bl], bs1[bl] = Weights(wf, g0, g1, s[lo:hi], f[lo:hi], av[lo:hi], w0[lo:hi], w1[lo:hi])
	}
	return Sum(bs0), Sum(bs1)
}

// ResumBlock recomputes the block sums of the block holding bit k of a
// layer's weights w0, w1.
func ResumBlock(w0, w1, bs0, bs1 []float64, k int) {
	lo := k / BlockBits * BlockBits
	hi := min(lo+BlockBits, len(w0))
	bs0[k/BlockBits], bs1[k/BlockBits] = Sum(w0[lo:hi]), Sum(w1[lo:hi])
}

// Sum adds xs in index order.
func Sum(xs []float64) float64 {
	z := 0.0
	for _, x := range xs {
		z += x
	}
	return z
}

// BlockDraw returns the first index of a layer's weights w at which their
// running sum exceeds u, scanning the block sums bs first; when rounding
// runs u past the end it returns the last positive weight, and -1 when
// there is none.
func BlockDraw(w, bs []float64, u float64) int {
	last := -1
	for bl, z := range bs {
		if z <= 0 {
			continue
		}
		lo := bl * BlockBits
		hi := min(lo+BlockBits, len(w))
		if u >= z {
			u -= z
			for k := hi - 1; k >= lo; k-- {
				if w[k] > 0 {
					last = k
					break
				}
			}
			continue
		}
		c := 0.0
		for k := lo; k < hi; k++ {
			if w[k] > 0 {
				c += w[k]
				if c > u {
					return k
				}
				last = k
			}
		}
		return last // u fell between c and the block's sum
	}
	return last
}
