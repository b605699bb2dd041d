package dense

import (
	"math"

	"sardonics/internal/memo"
	"sardonics/model"
	"sardonics/saw"
)

// Quant is the fixed-point form of an RBM that the pick weights are
// computed from: every coupling and bias times 2^S, rounded to an int32,
// with S the largest scale (at most 60) at which no unit's fixed-point
// field can exceed 2^30 in magnitude. Fields in this form are exact
// integer sums, so they are the same function of the spins however they
// were reached (no drift, no refresh). Only the pick weights use it; the
// energy uses the float64 model. Read-only once built: engines and
// sections share one.
//
// Only the transpose WT is stored: a visible unit's row of fixed-point
// couplings is rounded from the model's float64 row when it is used
// (Scale, Table.UpdateFix), which the engine reads anyway, so that the
// matrix costs 4 bytes per weight instead of 8.
type Quant struct {
	V, H  int
	S     int     // scale exponent
	Scale float64 // 2^S: Fix(x) = round(x Scale), ties to even
	WT    []int32 // H x V, row-major: round(2^S W_ij) at j*V+i; nil in a scale-only Quant
	B, C  []int32 // round(2^S b_i), round(2^S c_j)
	src   []float64
}

// maxField bounds a fixed-point field (a sum of at most V or H couplings
// and a bias, each rounded by at most 1/2, stays below 2^31).
const maxField = 1 << 30

// NewQuant returns the fixed-point form of r.
func NewQuant(r *model.RBM) *Quant {
	q := NewQuantScale(r)
	q.WT = make([]int32, len(r.W))
	q.FixT(q.WT, r.W, r.V, r.H)
	return q
}

// FixT writes the transpose of a (rows x cols, row-major) in fixed point
// (Fix) into t (cols x rows), in tiles that keep both sides in cache.
func (q *Quant) FixT(t []int32, a []float64, rows, cols int) {
	tiles(rows, cols, func(i0, i1, j0, j1 int) {
		for i := i0; i < i1; i++ {
			for j, x := range a[i*cols+j0 : i*cols+j1] {
				t[(j0+j)*rows+i] = fixBy(x, q.Scale)
			}
		}
	})
}

// NewQuantScale is NewQuant without the matrix WT: the scale, the
// biases in fixed point, and the model's own matrix (not copied, read
// only), from which Coupling rounds a coupling when asked. The parallel
// engine builds it and gives each section its own slices of the
// fixed-point matrix (Fix of the same numbers, so the same integers).
func NewQuantScale(r *model.RBM) *Quant {
	big := 0.0 // the largest sum of |bias| and |couplings| of any unit
	col := make([]float64, r.H)
	for j := range col {
		col[j] = math.Abs(r.C[j])
	}
	for i := 0; i < r.V; i++ {
		z := math.Abs(r.B[i])
		for j, x := range r.W[i*r.H : (i+1)*r.H] {
			a := math.Abs(x)
			z += a
			col[j] += a
		}
		big = max(big, z)
	}
	for _, z := range col {
		big = max(big, z)
	}
	// 2^S big + (V+H+1)/2 (rounding) < 2^30.
	room := float64(maxField - r.V - r.H - 1)
	S := 60
	for S > -1000 && math.Ldexp(big, S) >= room {
		S--
	}
	q := &Quant{V: r.V, H: r.H, S: S, Scale: math.Ldexp(1, S), B: make([]int32, r.V), C: make([]int32, r.H), src: r.W}
	for i := range q.B {
		q.B[i] = q.Fix(r.B[i])
	}
	for j := range q.C {
		q.C[j] = q.Fix(r.C[j])
	}
	return q
}

// Fix is x in fixed point: round(2^S x), ties to even. It equals
// fixBy(x, q.Scale), the form the kernels compute (TestFixByScale).
func (q *Quant) Fix(x float64) int32 { return int32(math.RoundToEven(math.Ldexp(x, q.S))) }

// fixBy is round(x scale), ties to even: Fix when scale = 2^S (S >= -1000,
// so 2^S is a normal float64 and the product is x 2^S correctly rounded,
// as Ldexp's: exact unless below 2^-1022, which rounds to 0 either way).
// NewQuantScale keeps every coupling's |x 2^S| below 2^30, so the
// conversion never overflows. round(-y) = -round(y), so fixBy(-x) =
// -fixBy(x): the kernels round d row for a flip d = +-1.
func fixBy(x, scale float64) int32 { return int32(math.RoundToEven(x * scale)) }

// tiles calls f on the 64 x 64 tiles [i0, i1) x [j0, j1) of a rows x cols
// matrix: a transposition tile by tile keeps both sides in cache.
func tiles(rows, cols int, f func(i0, i1, j0, j1 int)) {
	const tile = 64
	for i0 := 0; i0 < rows; i0 += tile {
		for j0 := 0; j0 < cols; j0 += tile {
			f(i0, min(i0+tile, rows), j0, min(j0+tile, cols))
		}
	}
}

// Transpose writes the transpose of a (rows x cols, row-major) into t
// (cols x rows), in tiles that keep both sides in cache.
func Transpose[T int32 | float64](t, a []T, rows, cols int) {
	tiles(rows, cols, func(i0, i1, j0, j1 int) {
		for i := i0; i < i1; i++ {
			for j := j0; j < j1; j++ {
				t[j*rows+i] = a[i*cols+j]
			}
		}
	})
}

// Coupling is the fixed-point coupling between bits a and b (visible then
// hidden indices; one of each layer).
func (q *Quant) Coupling(a, b int) int32 {
	if a > b {
		a, b = b, a
	}
	if q.WT == nil {
		return q.Fix(q.src[a*q.H+b-q.V])
	}
	return q.WT[(b-q.V)*q.V+a]
}

// Fields fills F (V+H, visible then hidden) with the fixed-point fields of
// spins s: F_i = B_i + sum_j W_ij h_j, F_j = C_j + sum_i W_ij v_i (exact
// integer sums, so in any order: both from one pass over the rows of WT).
func (q *Quant) Fields(s []int8, F []int32) {
	nv, nh := q.V, q.H
	Fv, Fh, sv := F[:nv], F[nv:nv+nh], s[:nv]
	copy(Fv, q.B)
	for j := 0; j < nh; j++ {
		row := q.WT[j*nv : (j+1)*nv]
		z := q.C[j]
		for i, x := range row {
			z += x * int32((sv[i]+1)>>1) // v_i = (1+s_i)/2, without a branch
		}
		Fh[j] = z
		if s[nv+j] > 0 {
			for i, x := range row {
				Fv[i] += x
			}
		}
	}
}

// Classes is the number of weight classes; a class is an index into the
// tables of a Bias.
const Classes = 4096

const (
	halfClasses = Classes / 2
	// WeightOne is the largest pick weight (2^31); every weight is an
	// integer in [1, WeightOne].
	WeightOne = 1 << 31
	// rangeLogistic and rangeExp bound |gamma dE| where the weights
	// still change: 2^31/(1+e^22) < 1/2 and e^-22 2^31 < 1/2, so
	// beyond them the rounded weight is constant anyway.
	rangeLogistic = 22
	rangeExp      = 11
)

// Bias holds the pick weights of both biases by weight class. A bit with
// spin s and fixed-point field F is in class
//
//	c = clamp(floor(s F / 2^Shift), -Classes/2, Classes/2-1) + Classes/2,
//
// i.e. its energy change dE = s F 2^-S falls in [k Delta, (k+1) Delta)
// with k = c - Classes/2 and Delta = 2^(Shift-S) (the end classes also
// take everything beyond). Its weight at bias b is W[b][c], the ideal
// weight of the class's midpoint dE_k = (k+1/2) Delta:
//
//	Logistic: max(1, round(2^31 / (1 + exp(x))))
//	Exp:      max(1, round(2^31 exp(-x - 11)))
//
// with x = clamp(gamma_b dE_k, -22, 22) (Logistic) or clamp(..., -11, 11)
// (Exp): a positive integer at most 2^31. Log[b][c] is its logarithm.
// Shift is the smallest at which Classes/2 classes span the clamped range
// at the smaller bias, so Delta gamma is about 1/64 to 1/93 for biases of
// equal size. Read-only once built.
type Bias struct {
	Shift uint
	W     [2][Classes]uint32
	Log   [2][Classes]float64
	Pairs [Classes]uint64 // W[0][c] | W[1][c]<<32, for the AVX2 kernels
}

// NewBias returns the tables of biases g0, g1 (>= 0) with weight function
// wf for fields of scale 2^S. It panics on an unknown Weight.
func NewBias(S int, g0, g1 float64, wf saw.Weight) *Bias {
	R := 0.0
	switch wf {
	case saw.Logistic:
		R = rangeLogistic
	case saw.Exp:
		R = rangeExp
	default:
		panic("dense: unknown Weight")
	}
	t := &Bias{Shift: 31}
	if gmin := min(g0, g1); gmin > 0 && !math.IsInf(gmin, 0) {
		// Delta = 2^(Shift-S) >= R / (halfClasses gmin).
		sh := S + int(math.Ceil(math.Log2(R/(halfClasses*gmin))))
		t.Shift = uint(min(max(sh, 0), 31))
	}
	delta := math.Ldexp(1, int(t.Shift)-S)
	for b, g := range [2]float64{g0, g1} {
		for c := range Classes {
			x := g * (float64(c-halfClasses) + 0.5) * delta
			wi := uint32(saw.FixedWeight(wf, x, R, WeightOne))
			t.W[b][c] = wi
			t.Log[b][c] = math.Log(float64(wi))
			t.Pairs[c] |= uint64(wi) << (32 * b)
		}
	}
	return t
}

// Class is the weight class of a bit with spin s and fixed-point field F.
func (t *Bias) Class(s int8, F int32) int {
	k := (int32(s) * F) >> (t.Shift & 31)
	return int(min(max(k, -halfClasses), halfClasses-1) + halfClasses)
}

// biasKey identifies a Bias in a cache.
type biasKey struct {
	S      int
	g0, g1 float64
	wf     saw.Weight
}

// BiasCache keeps the tables of recent biases: building one takes about
// 0.1 ms, and a chain with a mixture of thetas changes biases every step.
// Tables are shared by every engine of the process (memo), so that the R
// chains of replica exchange, each visiting R temperatures, build R in all.
type BiasCache struct{ l memo.Local[biasKey, *Bias] }

var sharedBiases = memo.Shared[biasKey, *Bias]{Max: 256,
	Build: func(k biasKey) *Bias { return NewBias(k.S, k.g0, k.g1, k.wf) }}

// Get returns NewBias(S, g0, g1, wf), built once.
func (bc *BiasCache) Get(S int, g0, g1 float64, wf saw.Weight) *Bias {
	return bc.l.Get(&sharedBiases, biasKey{S, g0, g1, wf})
}
