package saw

import (
	"fmt"
	"math"
	"math/rand/v2"

	"sardonics/rng"
)

// WalkType is the type (a, b) of a block or pair: the biases of its first
// and second halves.
type WalkType int8

const (
	TypeLL WalkType = iota // (gamma_L, gamma_L)
	TypeHL                 // (gamma_H, gamma_L)
	TypeLH                 // (gamma_L, gamma_H)
)

// typeBias holds each type's (a, b) as bias indices: 0 = L, 1 = H.
var typeBias = [3][2]int{{0, 0}, {1, 0}, {0, 1}}

// Bias is the bias index (0 = gamma_L, 1 = gamma_H) of the first (half 0)
// or second (half 1) half of the type.
func (t WalkType) Bias(half int) int { return typeBias[t][half] }

// Reverse is the type a block or pair of type t has when traversed
// backwards: (a, b) becomes (b, a).
func (t WalkType) Reverse() WalkType {
	switch t {
	case TypeHL:
		return TypeLH
	case TypeLH:
		return TypeHL
	}
	return t
}

func (t WalkType) String() string {
	if t >= 0 && int(t) < len(typeBias) {
		return [...]string{"LL", "HL", "LH"}[t]
	}
	return fmt.Sprintf("WalkType(%d)", int(t))
}

// walkBias is the bias index of walk w (of 2n) under the given types.
func walkBias(types []WalkType, layout Layout, n, w int) int {
	if layout == Pairs {
		return types[w/2].Bias(w % 2)
	}
	return types[0].Bias(w / n)
}

// drawType draws a type with probabilities p.
func drawType(r *rand.PCG, p [3]float64) WalkType {
	u := rng.Float64(r)
	switch {
	case u < p[0]:
		return TypeLL
	case u < p[0]+p[1] || p[2] == 0:
		return TypeHL
	}
	return TypeLH
}

// logSumExp3 is log(sum exp(x_i)), -Inf if all are -Inf.
func logSumExp3(x [3]float64) float64 {
	m := max(x[0], x[1], x[2])
	if math.IsInf(m, -1) {
		return m
	}
	return m + math.Log(math.Exp(x[0]-m)+math.Exp(x[1]-m)+math.Exp(x[2]-m))
}

// logQ is the marginal log proposal density (up to the length
// probabilities, which cancel) of the 2n walks with per-walk
// log-probabilities lf: blocks sum over one type per move, pairs over one
// type per unit.
func logQ(logP [3]float64, lf [][2]float64, layout Layout) float64 {
	n := len(lf) / 2
	if layout == Pairs {
		q := 0.0
		for u := range n {
			var x [3]float64
			for t := range x {
				x[t] = logP[t] + lf[2*u][typeBias[t][0]] + lf[2*u+1][typeBias[t][1]]
			}
			q += logSumExp3(x)
		}
		return q
	}
	var x [3]float64
	for t := range x {
		x[t] = logP[t]
		for w := range lf {
			x[t] += lf[w][typeBias[t][w/n]]
		}
	}
	return logSumExp3(x)
}

// LogAcceptRatio is the log Metropolis-Hastings ratio of one move: the
// move is accepted with probability min(1, exp(result)).
//
// p are the normalized type probabilities (Theta.TypeProbs). fwd[w] is the
// log-probability of forward walk w (of 2N, in proposal order) at both
// biases; rev[j] is that of walk j of the reverse path, i.e. forward walk
// 2N-1-j replayed backwards from the state after it. types are the drawn
// types: one per move for Blocks, one per unit for Pairs (used by Joint
// only). betaDE is beta (E(x1) - E(x0)).
//
// Marginal: -betaDE + log q(rev) - log q(fwd), q summing over types.
// Joint: -betaDE + sum over units of log P(reverse type)/P(type) +
// sum_walks (rev - fwd) at each walk's own bias; the reverse of unit u is
// unit N-1-u (blocks: the one block) with type (b, a). A reverse type of
// probability zero gives -Inf (reject). The walk-length probabilities
// cancel (uniform, and the reverse path has the same lengths).
func LogAcceptRatio(p [3]float64, types []WalkType, fwd, rev [][2]float64, layout Layout, rule Accept, betaDE float64) float64 {
	if len(fwd) != len(rev) || len(fwd)%2 != 0 {
		panic("saw.LogAcceptRatio: fwd and rev must hold the same even number of walks")
	}
	return logAcceptRatio(logProbs(p), types, fwd, rev, layout, rule, betaDE)
}

func logProbs(p [3]float64) [3]float64 {
	return [3]float64{math.Log(p[0]), math.Log(p[1]), math.Log(p[2])}
}

// logAcceptRatio is LogAcceptRatio with the type log-probabilities given.
func logAcceptRatio(logP [3]float64, types []WalkType, fwd, rev [][2]float64, layout Layout, rule Accept, betaDE float64) float64 {
	if rule == Marginal {
		return -betaDE + logQ(logP, rev, layout) - logQ(logP, fwd, layout)
	}
	n := len(fwd) / 2
	r := -betaDE
	if rule == Joint {
		for _, t := range types {
			r += logP[t.Reverse()] - logP[t]
		}
	}
	if math.IsInf(r, -1) {
		return r
	}
	revBias := func(j int) int { // bias of reverse walk j under the reverse types
		if layout == Pairs {
			return types[n-1-j/2].Reverse().Bias(j % 2)
		}
		return types[0].Reverse().Bias(j / n)
	}
	for w := range fwd {
		r -= fwd[w][walkBias(types, layout, n, w)]
		r += rev[w][revBias(w)]
	}
	return r
}

// mover holds one move's buffers, reused from move to move.
type mover struct {
	path   []int32
	bounds []int
	fwd    [][2]float64
	rev    [][2]float64
	types  []WalkType
	rej    float64    // recent rejection rate: an average over about 64 moves
	track  bool       // sum the flipped spins into dm (the chain tracks its magnetization)
	dm     int        // the change of sum_i s_i the forward walks made
	p      [3]float64 // the type probabilities logP was computed for
	logP   [3]float64
}

// move makes one SARDONICS move on eng (whose biases are already set for
// th and beta) and reports whether it was accepted and how many bits the
// forward walks flipped. On return eng is at x1 if accepted, else at x0.
func (mv *mover) move(eng Engine, r *rand.PCG, th Theta, beta float64, opts Options) (bool, int) {
	p := th.TypeProbs()
	lo, hi := th.Lengths(eng.N())
	n, nw := th.N, 2*th.N
	units := 1
	if opts.Layout == Pairs {
		units = n
	}
	mv.types = mv.types[:0]
	for range units {
		mv.types = append(mv.types, drawType(r, p))
	}
	mv.path = mv.path[:0]
	mv.bounds = append(mv.bounds[:0], 0)
	mv.fwd = resize(mv.fwd, nw)
	mv.rev = resize(mv.rev, nw)
	dE := 0.0
	mv.dm = 0
	for w := range nw {
		k := lo + rng.Intn(r, hi-lo+1)
		var d float64
		mv.path, mv.fwd[w], d = eng.Walk(r, k, walkBias(mv.types, opts.Layout, n, w), mv.path)
		dE += d
		if mv.track {
			// A walk is self-avoiding: it flipped each of its bits once,
			// from -s to s, changing sum_i s_i by 2s. The walks follow
			// one another, so their changes add up even where a later
			// walk flips a bit again.
			s := eng.Spins()
			for _, i := range mv.path[mv.bounds[w]:] {
				mv.dm += 2 * int(s[i])
			}
		}
		mv.bounds = append(mv.bounds, len(mv.path))
	}
	// The reverse path: the reversed walks in reverse order. A
	// FastReverser scores it in place (the engine stays at x1 and is
	// undone on rejection); otherwise replaying it returns the engine to
	// x0 and acceptance flips the path again.
	fr, fast := eng.(FastReverser)
	fast = fast && 1-mv.rej >= fr.FastAcceptance() && fr.ReverseLogProbs(mv.path, mv.bounds, mv.rev)
	if !fast {
		for w := nw - 1; w >= 0; w-- {
			mv.rev[nw-1-w], _ = eng.Replay(mv.path[mv.bounds[w]:mv.bounds[w+1]], true)
		}
	}
	if p != mv.p || mv.logP == ([3]float64{}) {
		mv.p, mv.logP = p, logProbs(p)
	}
	lr := logAcceptRatio(mv.logP, mv.types, mv.fwd, mv.rev, opts.Layout, opts.Accept, beta*dE)
	ok := lr >= 0 || math.Log(rng.Float64(r)) < lr
	switch {
	case ok && !fast:
		eng.Flip(mv.path)
	case !ok && fast:
		fr.Undo(mv.path)
	}
	if ok {
		mv.rej -= mv.rej / 64
	} else {
		mv.rej += (1 - mv.rej) / 64
	}
	return ok, len(mv.path)
}

func resize(x [][2]float64, n int) [][2]float64 {
	if cap(x) < n {
		return make([][2]float64, n)
	}
	return x[:n]
}
