package sparse

import "math"

// tlogProd accumulates log prod_i Z_i without a logarithm per step, as a
// mantissa in [0.5, 1) and a binary exponent (every Z_i is a positive
// normal number, and so is mantissa*Z_i), and its log evaluates
// log(mantissa) from a table of 256 points and a degree-6 series (no
// division), within about 2 ulps of math.Log. The tree's Walk, Replay and
// ReverseLogProbs all use it, so their log-probabilities are the same
// function of the same integers; the bucket's walkSums keeps the same pair
// for both biases.
type tlogProd struct {
	m float64
	e int
}

// newTLogProd is the empty product, 1 = 0.5 * 2^1.
func newTLogProd() tlogProd { return tlogProd{m: 0.5, e: 1} }

func (p *tlogProd) mul(z float64) {
	b := math.Float64bits(p.m * z)
	p.e += int(b>>52&0x7ff) - 1022
	p.m = math.Float64frombits(b&^(0x7ff<<52) | 1022<<52)
}

func (p *tlogProd) log() float64 { return logHalf(p.m) + float64(p.e)*math.Ln2 }

// logTab[i] holds 1/c_i and log(c_i) for c_i = (1 + (i+1/2)/256)/2, the
// midpoints of 256 equal parts of [0.5, 1).
var logTab = func() (t [256][2]float64) {
	for i := range t {
		c := (1 + (float64(i)+0.5)/256) / 2
		t[i] = [2]float64{1 / c, math.Log(c)}
	}
	return t
}()

// logHalf is log(m) for m in [0.5, 1): log(c) + log1p(d) with c the
// table point of m's part and d = m/c - 1, |d| <= 2^-9, so the series
// d - d^2/2 + ... - d^6/6 is exact to 2^-66.
func logHalf(m float64) float64 {
	e := &logTab[math.Float64bits(m)>>44&0xff]
	d := m*e[0] - 1
	s := d * (1 - d*(1.0/2-d*(1.0/3-d*(1.0/4-d*(1.0/5-d*(1.0/6))))))
	return e[1] + s
}

// tjournal is the tree's journal (see journal): one entry per flip, the
// bit and the energy before it, in one slice.
type tjournal struct{ j []jentry }

type jentry struct {
	e   float64
	bit int32
}

// flip returns the energy after flipping bit l from energy e with change
// dE: the saved energy if l was flipped last (an undo), else e + dE.
func (j *tjournal) flip(l int32, e, dE float64) float64 {
	if n := len(j.j); n > 0 && j.j[n-1].bit == l {
		e = j.j[n-1].e
		j.j = j.j[:n-1]
		return e
	}
	if len(j.j) == journalCap {
		j.j = j.j[:copy(j.j, j.j[journalCap/2:])]
	}
	j.j = append(j.j, jentry{e, l})
	return e + dE
}

func (j *tjournal) reset() { j.j = j.j[:0] }
