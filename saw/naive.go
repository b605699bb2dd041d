package saw

import (
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/model"
	"sardonics/rng"
)

// naive is the reference engine: every pick recomputes dE of every
// available bit from the model, its log-weights at both biases and both
// normalizers, then draws by a linear scan. O(M * degree) per flip: slow,
// obviously correct, the yardstick for the fast engines.
type naive struct {
	m     *model.Ising
	s     []int8
	avail []bool
	e     float64
	g     [2]float64
	w     Weight
	dE    []float64
	lw    [2][]float64
}

var _ Engine = (*naive)(nil)

// NewNaive returns the reference engine for m started at init (copied). Its
// biases start at gamma_L = gamma_H = 1 with the logistic weight; callers
// set them with SetBiases. It panics if len(init) != m.N.
func NewNaive(m *model.Ising, init []int8) Engine {
	if len(init) != m.N {
		panic(fmt.Sprintf("saw.NewNaive: %d spins for %d variables", len(init), m.N))
	}
	checkSpins(init)
	e := &naive{
		m:     m,
		s:     append([]int8(nil), init...),
		avail: make([]bool, m.N),
		g:     [2]float64{1, 1},
		w:     Logistic,
		dE:    make([]float64, m.N),
		lw:    [2][]float64{make([]float64, m.N), make([]float64, m.N)},
	}
	for i := range e.avail {
		e.avail[i] = true
	}
	e.e = m.Energy(e.s)
	return e
}

func (e *naive) N() int { return e.m.N }

func (e *naive) SetBiases(gammaL, gammaH float64, w Weight) {
	e.g = [2]float64{gammaL, gammaH}
	e.w = w
}

// scan fills dE and the log-weights of the available bits and returns, per
// bias, the largest log-weight and the sum of exp(lw - max).
func (e *naive) scan() (mx, sum [2]float64) {
	mx = [2]float64{math.Inf(-1), math.Inf(-1)}
	for l, ok := range e.avail {
		if !ok {
			continue
		}
		d := 2 * float64(e.s[l]) * e.m.Field(e.s, l)
		e.dE[l] = d
		for c := range 2 {
			lw := LogWeight(e.w, e.g[c], d)
			e.lw[c][l] = lw
			mx[c] = max(mx[c], lw)
		}
	}
	for l, ok := range e.avail {
		if !ok {
			continue
		}
		for c := range 2 {
			sum[c] += math.Exp(e.lw[c][l] - mx[c])
		}
	}
	return mx, sum
}

// take flips available bit l after a scan and adds its log-probability at
// both biases to lf; it returns dE of the flip.
func (e *naive) take(l int, mx, sum [2]float64, lf *[2]float64) float64 {
	for c := range 2 {
		lf[c] += e.lw[c][l] - (mx[c] + math.Log(sum[c]))
	}
	e.s[l] = -e.s[l]
	e.avail[l] = false
	return e.dE[l]
}

func (e *naive) release(path []int32) {
	for _, l := range path {
		e.avail[l] = true
	}
	e.e = e.m.Energy(e.s)
}

func (e *naive) Walk(r *rand.PCG, k, b int, path []int32) ([]int32, [2]float64, float64) {
	if k < 0 || k > e.m.N {
		panic(fmt.Sprintf("saw: walk length %d for %d bits", k, e.m.N))
	}
	start := len(path)
	var lf [2]float64
	dE := 0.0
	for range k {
		mx, sum := e.scan()
		u := rng.Float64(r) * sum[b]
		pick, acc := -1, 0.0
		for l, ok := range e.avail {
			if !ok {
				continue
			}
			wt := math.Exp(e.lw[b][l] - mx[b])
			if wt == 0 {
				continue
			}
			pick = l // rounding can leave u just above the total: keep the last
			if acc += wt; u < acc {
				break
			}
		}
		dE += e.take(pick, mx, sum, &lf)
		path = append(path, int32(pick))
	}
	e.release(path[start:])
	return path, lf, dE
}

func (e *naive) Replay(path []int32, backwards bool) ([2]float64, float64) {
	var lf [2]float64
	dE := 0.0
	for i := range path {
		l := path[i]
		if backwards {
			l = path[len(path)-1-i]
		}
		if !e.avail[l] {
			panic(fmt.Sprintf("saw: replayed walk visits bit %d twice", l))
		}
		mx, sum := e.scan()
		dE += e.take(int(l), mx, sum, &lf)
	}
	e.release(path)
	return lf, dE
}

func (e *naive) Flip(path []int32) {
	for _, l := range path {
		e.s[l] = -e.s[l]
	}
	e.e = e.m.Energy(e.s)
}

func (e *naive) Energy() float64 { return e.e }

func (e *naive) Spins() []int8 { return e.s }

func (e *naive) SetSpins(s []int8) {
	if len(s) != len(e.s) {
		panic(fmt.Sprintf("saw: SetSpins with %d spins for %d variables", len(s), len(e.s)))
	}
	checkSpins(s)
	copy(e.s, s)
	e.e = e.m.Energy(e.s)
}

// checkSpins panics unless every spin is -1 or +1 (programmer error).
func checkSpins(s []int8) {
	for i, v := range s {
		if v != 1 && v != -1 {
			panic(fmt.Sprintf("saw: spin %d is %d (expected -1 or +1)", i, v))
		}
	}
}
