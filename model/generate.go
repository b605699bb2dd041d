package model

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GenStream is the PCG stream (increment) constant of every generator: an
// instance with seed S draws from rand.NewPCG(S, GenStream). Changing it
// changes every generated instance; the golden test pins it.
const GenStream = 0x5a2d_0e1c_5ea1_1ced

// Draws. Every random number is taken from PCG.Uint64 directly, never through
// math/rand/v2's derived methods, and turned into a value with exact
// arithmetic only, so an instance is bit-identical on every platform and Go
// version:
//   - a ±1 value is +1 when the top bit of one Uint64 is set, else -1;
//   - a uniform value on [-1,1) is (x>>11) * 2^-52 - 1 for one Uint64 x;
//   - a normal value comes from the Marsaglia polar method (normalPair).

func pm1(r *rand.PCG) float64 {
	if r.Uint64()>>63 == 1 {
		return 1
	}
	return -1
}

func uniformPM(r *rand.PCG) float64 {
	// Both operations are exact (power-of-two scaling, then a subtraction of
	// two values in [0,2)), so fused multiply-add cannot change the result.
	return float64(r.Uint64()>>11)*0x1p-52 - 1
}

// torusBonds lists the 2L^2 bonds of the L x L torus: site (x,y) has index
// y*L+x and, visiting sites in index order, each site contributes its bond to
// the right ((x+1) mod L, y) and then its bond down (x, (y+1) mod L).
// (The generators build their CSR rows directly, in this order: torusIsing;
// the tests compare the two.)
func torusBonds(l int) []Edge {
	edges := make([]Edge, 0, 2*l*l)
	for y := 0; y < l; y++ {
		for x := 0; x < l; x++ {
			i := int32(y*l + x)
			edges = append(edges, Edge{i, int32(y*l + (x+1)%l), 1})
			edges = append(edges, Edge{i, int32(((y+1)%l)*l + x), 1})
		}
	}
	return edges
}

// torusIsing is the model NewIsing builds from the bonds of the L^dim torus
// (L >= 3, h = nil: fields left zero for the caller to set, else used as
// the model's), written straight into its CSR rows without an edge list:
// site i = ((z L + y) L + x) visited in index order contributes its bonds
// in +x, +y (, +z) order, wrapping, each weighted by the next call of
// weight (the generators' draw order). Every row has 2 dim entries, the
// bond to +axis k in slot 2k and to -axis k in slot 2k+1 while filling,
// then sorted by neighbour index as NewIsing sorts them.
func torusIsing(l, dim int, weight func() float64, h []float64) *Ising {
	n := 1
	for range dim {
		n *= l
	}
	deg := 2 * dim
	m := &Ising{N: n, Start: make([]int32, n+1), Adj: make([]int32, n*deg), J: make([]float64, n*deg), H: h}
	if m.H == nil {
		m.H = make([]float64, n)
	}
	for i := range m.Start {
		m.Start[i] = int32(i * deg)
	}
	var c [3]int // site i's coordinates, x first
	for i := range n {
		stride := 1
		for k := range dim {
			j := i + stride
			if c[k] == l-1 {
				j -= l * stride
			}
			w := weight()
			m.Adj[i*deg+2*k], m.J[i*deg+2*k] = int32(j), w
			m.Adj[j*deg+2*k+1], m.J[j*deg+2*k+1] = int32(i), w
			stride *= l
		}
		for k := range dim { // the next site's coordinates
			if c[k]++; c[k] < l {
				break
			}
			c[k] = 0
		}
	}
	for i := range n {
		sortRow(m.Adj[i*deg:(i+1)*deg], m.J[i*deg:(i+1)*deg])
	}
	return m
}

// checkTorus requires L >= 3: at L = 2 the right and left neighbours of a
// site coincide and the torus would list each pair twice.
func checkTorus(name string, l, dim int) error {
	if l < 3 {
		return inputErr("--model", 0, "%s: L=%d too small (expected an integer L >= 3)", name, l)
	}
	n := 1
	for range dim {
		n *= l
		if n > MaxVariables {
			return inputErr("--model", 0, "%s: L=%d gives more than %d variables (expected a smaller L)", name, l, MaxVariables)
		}
	}
	return nil
}

// Ferro2D is the L x L ferromagnetic torus: bonds as in torusBonds, J = 1,
// h = 0. It draws no random numbers. L must be at least 3.
func Ferro2D(l int) (*Model, error) {
	if err := checkTorus("ferro2d", l, 2); err != nil {
		return nil, err
	}
	is := torusIsing(l, 2, func() float64 { return 1 }, make([]float64, l*l))
	return &Model{Spec: fmt.Sprintf("ferro2d:L=%d", l), Kind: KindIsing, Ising: is}, nil
}

// Frustrated2D is the L x L torus with J and h uniform on {-1,+1}. It draws
// one ±1 value for every bond in torusBonds order (2L^2 draws), then one for
// the field of every site in index order (L^2 draws).
func Frustrated2D(l int, seed uint64) (*Model, error) {
	if err := checkTorus("frustrated2d", l, 2); err != nil {
		return nil, err
	}
	r := rand.NewPCG(seed, GenStream)
	is := torusIsing(l, 2, func() float64 { return pm1(r) }, nil)
	for i := range is.H {
		is.H[i] = pm1(r)
	}
	return &Model{Spec: fmt.Sprintf("frustrated2d:L=%d,seed=%d", l, seed), Kind: KindIsing, Ising: is}, nil
}

// SpinGlass2D is the L x L torus (bonds as in torusBonds) with J uniform
// on {-1,+1} and h = 0: the 2D Edwards-Anderson +-J glass. It draws one ±1
// value for every bond in torusBonds order (2L^2 draws), the same draws as
// Frustrated2D's couplings, so spinglass2d:L=L,seed=S is
// frustrated2d:L=L,seed=S without its fields.
func SpinGlass2D(l int, seed uint64) (*Model, error) {
	if err := checkTorus("spinglass2d", l, 2); err != nil {
		return nil, err
	}
	r := rand.NewPCG(seed, GenStream)
	is := torusIsing(l, 2, func() float64 { return pm1(r) }, make([]float64, l*l))
	return &Model{Spec: fmt.Sprintf("spinglass2d:L=%d,seed=%d", l, seed), Kind: KindIsing, Ising: is}, nil
}

// SpinGlass3D is the L x L x L torus with J uniform on {-1,+1} and h = 0.
// Site (x,y,z) has index (z*L+y)*L+x; visiting sites in index order, each
// contributes its bonds in +x, +y, +z order (wrapping), and each bond draws
// one ±1 value in that order (3L^3 draws).
func SpinGlass3D(l int, seed uint64) (*Model, error) {
	if err := checkTorus("spinglass3d", l, 3); err != nil {
		return nil, err
	}
	r := rand.NewPCG(seed, GenStream)
	is := torusIsing(l, 3, func() float64 { return pm1(r) }, make([]float64, l*l*l))
	return &Model{Spec: fmt.Sprintf("spinglass3d:L=%d,seed=%d", l, seed), Kind: KindIsing, Ising: is}, nil
}

// ChimeraOptions selects the chimera coupling and field distributions.
type ChimeraOptions struct {
	PM1J bool // J uniform on {-1,+1}; default uniform on [-1,1)
	PM1H bool // h uniform on {-1,+1}; default h = 0
}

// ChimeraIndex is D-Wave's linear index of qubit k of half u (0 vertical,
// 1 horizontal) in cell (i,j) of C(M,N,T): ((i*N+j)*2+u)*T+k.
func ChimeraIndex(n, t, i, j, u, k int) int { return ((i*n+j)*2+u)*t + k }

// Chimera is C(M,N,T): an M x N grid of K_{T,T} cells. Couplings are listed,
// and drawn, in this order: for each cell (i,j) in row-major order, the
// intra-cell edges (i,j,0,k)-(i,j,1,k') for k then k' in 0..T-1; then, for k
// in 0..T-1, the vertical coupler (i,j,0,k)-(i+1,j,0,k) when i+1 < M; then,
// for k in 0..T-1, the horizontal coupler (i,j,1,k)-(i,j+1,1,k) when
// j+1 < N. Each coupling draws one value (uniform on [-1,1), or ±1 with
// PM1J); then, with PM1H, each qubit in index order draws a ±1 field.
func Chimera(m, n, t int, seed uint64, opt ChimeraOptions) (*Model, error) {
	for _, p := range []struct {
		k string
		v int
	}{{"M", m}, {"N", n}, {"T", t}} {
		if p.v < 1 {
			return nil, inputErr("--model", 0, "chimera: %s=%d (expected a positive integer)", p.k, p.v)
		}
	}
	if m > MaxVariables || n > MaxVariables || t > MaxVariables || m*n > MaxVariables || 2*m*n*t > MaxVariables {
		return nil, inputErr("--model", 0, "chimera: M=%d,N=%d,T=%d gives more than %d variables (expected a smaller chimera)", m, n, t, MaxVariables)
	}
	r := rand.NewPCG(seed, GenStream)
	draw := uniformPM
	if opt.PM1J {
		draw = pm1
	}
	id := func(i, j, u, k int) int32 { return int32(ChimeraIndex(n, t, i, j, u, k)) }
	var edges []Edge
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < t; k++ {
				for k2 := 0; k2 < t; k2++ {
					edges = append(edges, Edge{id(i, j, 0, k), id(i, j, 1, k2), draw(r)})
				}
			}
			if i+1 < m {
				for k := 0; k < t; k++ {
					edges = append(edges, Edge{id(i, j, 0, k), id(i+1, j, 0, k), draw(r)})
				}
			}
			if j+1 < n {
				for k := 0; k < t; k++ {
					edges = append(edges, Edge{id(i, j, 1, k), id(i, j+1, 1, k), draw(r)})
				}
			}
		}
	}
	nv := 2 * m * n * t
	h := make([]float64, nv)
	if opt.PM1H {
		for i := range h {
			h[i] = pm1(r)
		}
	}
	is, err := NewIsing(nv, edges, h, 0)
	if err != nil {
		return nil, err
	}
	spec := fmt.Sprintf("chimera:M=%d,N=%d,T=%d,seed=%d", m, n, t, seed)
	if opt.PM1J {
		spec += ",J=pm1"
	}
	if opt.PM1H {
		spec += ",h=pm1"
	}
	return &Model{Spec: spec, Kind: KindIsing, Ising: is}, nil
}

// RandomRBM is a V x H RBM with weights N(0, scale^2) and zero biases.
// W is filled in row-major order (W[i*H+j]) with scale*z, the normals z
// taken two at a time from normalPair (when V*H is odd, the second value of
// the last pair is dropped).
func RandomRBM(v, h int, seed uint64, scale float64) (*Model, error) {
	if v < 1 || h < 1 {
		return nil, inputErr("--model", 0, "rbm-random: V=%d,H=%d (expected positive integers)", v, h)
	}
	if v > MaxVariables || h > MaxVariables || v+h > MaxVariables || v*h > MaxRBMWeights {
		return nil, inputErr("--model", 0, "rbm-random: V=%d,H=%d too large (expected V+H <= %d and V*H <= %d)", v, h, MaxVariables, MaxRBMWeights)
	}
	if math.IsNaN(scale) || math.IsInf(scale, 0) || scale < 0 {
		return nil, inputErr("--model", 0, "rbm-random: scale=%v (expected a finite number >= 0)", scale)
	}
	r := rand.NewPCG(seed, GenStream)
	w := make([]float64, v*h)
	sumZ := 0.0 // sum of |z|: the weights' magnitudes sum to scale*sumZ
	for k := 0; k < len(w); k += 2 {
		z0, z1 := normalPair(r)
		w[k] = scale * z0
		sumZ += math.Abs(z0)
		if k+1 < len(w) {
			w[k+1] = scale * z1
			sumZ += math.Abs(z1)
		}
	}
	if sum := scale * sumZ; sum > MaxEnergy {
		return nil, inputErr("--model", 0, "rbm-random: scale=%s gives weights whose magnitudes sum to %s (expected at most %s, the largest |energy| a model may reach: here scale <= %s)",
			fmtFloat(scale), fmtG(sum), fmtFloat(MaxEnergy), fmtFloor3(MaxEnergy/sumZ))
	}
	rb, err := NewRBM(v, h, w, nil, nil)
	if err != nil {
		return nil, err
	}
	m := rbmModel(rb)
	m.Spec = fmt.Sprintf("rbm-random:V=%d,H=%d,seed=%d,scale=%s", v, h, seed, fmtFloat(scale))
	return m, nil
}

// rbmModel is the model of r, its Ising form left to Sparse. Building it
// cannot fail: every constructor bounds the sum of |parameters| by
// MaxEnergy, so its fields and offset are finite.
func rbmModel(r *RBM) *Model { return &Model{Kind: KindRBM, RBM: r} }

// normalPair returns two independent N(0,1) values by the Marsaglia polar
// method: draw a = uniformPM, b = uniformPM (two Uint64s), s = a^2 + b^2,
// retry while s >= 1 or s == 0, then f = sqrt(-2 ln(s) / s) and return
// (a*f, b*f). Every intermediate is rounded explicitly and the logarithm is
// computed here (fusionFreeLog), so the values do not depend on the
// platform's math.Log or on fused multiply-add.
func normalPair(r *rand.PCG) (float64, float64) {
	for {
		a, b := uniformPM(r), uniformPM(r)
		s := float64(float64(a*a) + float64(b*b))
		if s >= 1 || s == 0 {
			continue
		}
		f := math.Sqrt(float64(-2*fusionFreeLog(s)) / s)
		return float64(a * f), float64(b * f)
	}
}

// fusionFreeLog is ln(x) for finite x > 0, accurate to a few ulps, using
// only explicitly rounded operations: x = m 2^e with m in [sqrt(1/2),
// sqrt(2)), ln m = 2 atanh(t) with t = (m-1)/(m+1), |t| < 0.172, summed as a
// series to t^41.
func fusionFreeLog(x float64) float64 {
	m, e := math.Frexp(x) // m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	t := float64(m-1) / float64(m+1)
	t2 := float64(t * t)
	sum, pow := 0.0, t
	for k := 1; k <= 41; k += 2 {
		sum = float64(sum + float64(pow/float64(k)))
		pow = float64(pow * t2)
	}
	return float64(float64(2*sum) + float64(float64(e)*math.Ln2))
}

// SK is the Sherrington-Kirkpatrick glass on N spins: every pair coupled,
// h = 0, J_ij = z / sqrt(N) rounded to float32 (so the matrix is held in
// 4 bytes per entry, exactly), with z normal (gauss) or +-1 (pm1). Pairs
// are visited in row order (i < j: i ascending, then j); gauss takes the
// normals two at a time from normalPair (when the number of pairs is odd,
// the second value of the last pair is dropped), pm1 draws one pm1 value
// per pair, times float32(1/sqrt(N)).
func SK(n int, seed uint64, pm bool) (*Model, error) {
	if n < 1 || n > MaxDenseVariables {
		return nil, inputErr("--model", 0, "sk: N=%d (expected an integer in 1..%d: the full matrix must hold at most %d entries)", n, MaxDenseVariables, MaxRBMWeights)
	}
	r := rand.NewPCG(seed, GenStream)
	sq := math.Sqrt(float64(n))
	d := &Dense{N: n, J32: make([]float32, n*n), H: make([]float64, n)}
	unit := float32(1 / sq)
	var spare float64
	have := false
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			var w float32
			if pm {
				w = unit
				if pm1(r) < 0 {
					w = -unit
				}
			} else {
				if !have {
					var z float64
					z, spare = normalPair(r)
					have = true
					w = float32(z / sq)
				} else {
					have = false
					w = float32(spare / sq)
				}
			}
			d.J32[i*n+j], d.J32[j*n+i] = w, w
			if w != 0 {
				d.Pairs++
			}
		}
	}
	spec := fmt.Sprintf("sk:N=%d,seed=%d", n, seed)
	if pm {
		spec += ",J=pm1"
	}
	return &Model{Spec: spec, Kind: KindIsing, Dense: d}, nil
}
