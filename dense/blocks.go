package dense

import "sardonics/saw"

// BlockBits is the size of the blocks whose weight sums a Table keeps: a
// flip re-adds one block and the block sums of a layer instead of the whole
// layer, and a draw scans block sums before weights.
const BlockBits = 64

// Table holds the pick weights of two layers of bits (layer 0 first, as in
// an RBM's visible then hidden units, or one section's share of them) at
// both biases, with their block sums and layer sums. Both RBM engines keep
// their weights in one.
type Table struct {
	W   [2][]float64  // [bias][bit]; 0 for a taken bit
	Sum [2][2]float64 // [layer][bias]
	n0  int           // bits of layer 0
	nb0 int           // blocks of layer 0
	bs  [2][]float64  // [bias][block], layer 0's blocks first
}

// NewTable returns a table of n0 + n1 bits, all weights 0.
func NewTable(n0, n1 int) *Table {
	nb0, nb := numBlocks(n0), numBlocks(n0)+numBlocks(n1)
	return &Table{
		W:   [2][]float64{make([]float64, n0+n1), make([]float64, n0+n1)},
		n0:  n0,
		nb0: nb0,
		bs:  [2][]float64{make([]float64, nb), make([]float64, nb)},
	}
}

func numBlocks(n int) int { return (n + BlockBits - 1) / BlockBits }

// Layer is the layer of bit l.
func (t *Table) Layer(l int) int {
	if l >= t.n0 {
		return 1
	}
	return 0
}

// span returns layer k's bit range and its block sums at both biases.
func (t *Table) span(k int) (lo, hi int, bs0, bs1 []float64) {
	if k == 0 {
		return 0, t.n0, t.bs[0][:t.nb0], t.bs[1][:t.nb0]
	}
	return t.n0, len(t.W[0]), t.bs[0][t.nb0:], t.bs[1][t.nb0:]
}

// Reweigh sets the weights of layer k from its spins s, fields f and
// availability av (Weights, block by block) and updates its sums.
func (t *Table) Reweigh(k int, wf saw.Weight, g0, g1 float64, s []int8, f []float64, av []bool) {
	lo, hi, bs0, bs1 := t.span(k)
	for a, bl := lo, 0; a < hi; a, bl = a+BlockBits, bl+1 {
		b := min(a+BlockBits, hi)
		bs0[bl], bs1[bl] = Weights(wf, g0, g1, s[a-lo:b-lo], f[a-lo:b-lo], av[a-lo:b-lo], t.W[0][a:b], t.W[1][a:b])
	}
	t.Sum[k] = [2]float64{sum(bs0), sum(bs1)}
}

// Take zeroes the weights of bit l and updates its block's and layer's sums.
func (t *Table) Take(l int) {
	t.W[0][l], t.W[1][l] = 0, 0
	t.resumBlock(l)
	k := t.Layer(l)
	_, _, bs0, bs1 := t.span(k)
	t.Sum[k] = [2]float64{sum(bs0), sum(bs1)}
}

// Set gives bit l the weights w0, w1 and updates its block's sums; call
// SumLayers after the last Set.
func (t *Table) Set(l int, w0, w1 float64) {
	t.W[0][l], t.W[1][l] = w0, w1
	t.resumBlock(l)
}

// SumLayers recomputes both layers' sums from their block sums.
func (t *Table) SumLayers() {
	for k := range 2 {
		_, _, bs0, bs1 := t.span(k)
		t.Sum[k] = [2]float64{sum(bs0), sum(bs1)}
	}
}

// Z is the sum of all weights at bias b.
func (t *Table) Z(b int) float64 { return t.Sum[0][b] + t.Sum[1][b] }

func (t *Table) resumBlock(l int) {
	lo, hi, bs0, bs1 := t.span(t.Layer(l))
	bl := (l - lo) / BlockBits
	a := lo + bl*BlockBits
	b := min(a+BlockBits, hi)
	bs0[bl], bs1[bl] = sum(t.W[0][a:b]), sum(t.W[1][a:b])
}

func sum(xs []float64) float64 {
	z := 0.0
	for _, x := range xs {
		z += x
	}
	return z
}

// Draw returns the bit at which the running sum of the weights at bias b
// (layer 0, then layer 1) first exceeds u, for u in [0, Z(b)): a layer,
// then a block by its sum, then a bit within the block. When rounding runs
// u past the end it returns the last positive weight, and -1 when there is
// none.
func (t *Table) Draw(b int, u float64) int {
	k := 0
	if u >= t.Sum[0][b] && t.Sum[1][b] > 0 {
		u -= t.Sum[0][b]
		k = 1
	}
	lo, hi, bs0, bs1 := t.span(k)
	if l := blockDraw(t.W[b][lo:hi], [2][]float64{bs0, bs1}[b], u); l >= 0 {
		return lo + l
	}
	w := t.W[b]
	for l := len(w) - 1; l >= 0; l-- { // rounding moved u past an all-zero layer
		if w[l] > 0 {
			return l
		}
	}
	return -1
}

// blockDraw is Draw within one layer's weights w and block sums bs.
func blockDraw(w, bs []float64, u float64) int {
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
