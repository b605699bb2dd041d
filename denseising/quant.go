package denseising

import (
	"math"

	"sardonics/internal/memo"
	"sardonics/model"
)

// Quant is the fixed-point form of a dense model that the pick weights are
// computed from: Q_ij = round(2^S J_ij) as int16 (N x N, row-major, zero
// diagonal), Hq_i = round(2^S h_i) as int32, with S the largest scale (at
// most 60) at which every |Q_ij| <= 32767 and no fixed-point field can
// exceed 2^30 in magnitude. Read-only once built; shared by every engine
// of a model (QuantOf).
type Quant struct {
	N  int
	S  int
	Q  []int16
	Hq []int32
}

// maxField bounds a fixed-point field (a sum of N couplings and a field,
// each rounded by at most 1/2, stays below 2^31 even after the factor 2
// of a flip's update).
const maxField = 1 << 30

// NewQuant returns the fixed-point form of d.
func NewQuant(d *model.Dense) *Quant {
	n, S := d.N, Scale(d)
	q := &Quant{N: n, S: S, Q: make([]int16, n*n), Hq: FixFields(d, S)}
	for i := 0; i < n; i++ {
		if d.J32 != nil {
			FixRow(q.Q[i*n:(i+1)*n], d.J32[i*n:(i+1)*n], S)
		} else {
			FixRow(q.Q[i*n:(i+1)*n], d.J64[i*n:(i+1)*n], S)
		}
	}
	return q
}

// FixRow sets dst to the couplings of row at scale S: round(2^S x), an
// int16 when S is Scale's. (x 2^S is exact, S being at least -1000, but
// where it is below 2^-1022, which rounds to 0 either way.)
func FixRow[R Row](dst []int16, row []R, S int) {
	f := math.Ldexp(1, S)
	dst = dst[:len(row)]
	for j, x := range row {
		dst[j] = int16(math.RoundToEven(float64(x) * f))
	}
}

// FixFields is d's fields at scale S: Hq_i = round(2^S h_i).
func FixFields(d *model.Dense, S int) []int32 {
	hq := make([]int32, d.N)
	for i, h := range d.H {
		hq[i] = int32(math.RoundToEven(math.Ldexp(h, S)))
	}
	return hq
}

// Scale is the scale S of NewQuant(d) (a pass over the matrix, nothing
// kept).
func Scale(d *model.Dense) int {
	n := d.N
	big, top := 0.0, 0.0 // largest sum |h_i| + sum_j |J_ij|; largest |J_ij|
	for i := 0; i < n; i++ {
		z := math.Abs(d.H[i])
		for j := 0; j < n; j++ {
			a := math.Abs(d.At(i, j))
			z += a
			top = max(top, a)
		}
		big = max(big, z)
	}
	room := float64(maxField - n - 1)
	S := 60
	for S > -1000 && (math.Ldexp(big, S) >= room || math.Ldexp(top, S) > math.MaxInt16) {
		S--
	}
	return S
}

// Fields fills F with the fixed-point fields of spins s: F_i = Hq_i +
// sum_j Q_ij s_j (exact integer sums).
func (q *Quant) Fields(s []int8, F []int32) {
	n := q.N
	copy(F, q.Hq)
	for j := 0; j < n; j++ {
		// Row j is column j (Q is symmetric): add s_j Q_j to every field.
		AddQ(F, q.Q[j*n:(j+1)*n], int32(s[j]))
	}
}

var quants memo.Weak[model.Dense, *Quant]

// QuantOf is NewQuant(d), built once per model and shared by its engines.
func QuantOf(d *model.Dense) *Quant { return quants.Get(d, NewQuant) }
