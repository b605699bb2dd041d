package saw

import (
	"fmt"
	"math"

	"sardonics/model"
)

// maxKernelLeaves bounds the enumeration Kernel will attempt: start
// states times forward paths.
const maxKernelLeaves = 5e7

// Kernel is the exact one-move transition matrix K[x][y] of the move with
// theta at inverse temperature beta on M bits, by enumeration. State index
// x has bit i set exactly when s_i = +1. For every start state, type (one
// per move for blocks, one per unit for pairs), walk lengths and sequence
// of distinct bits per walk, the path's proposal probability
// P(types) * prod P(length) * prod f(walk | its bias) is split between its
// end state (times the acceptance LogAcceptRatio gives, exactly as the
// chain uses it) and the start state (the rest). Rows therefore sum to 1
// only if the engine's walk probabilities are normalized.
//
// newEng is called once; each walk's forward and reverse log-probabilities
// come from the engine's Replay (the reverse from its FastReverser, if it
// has one and accepts the walk), so Kernel checks an engine's exact
// probabilities (Walk's draws need a sampling test). Kernel refuses
// problems of more than 5e7 paths. About a microsecond per path: M = 5
// with N = 1 and ku = 3 takes 0.2 s, M = 6 about 2 s, M = 4 with N = 2
// and ku = 2 about 1 s (ku = 3: 40 s).
func Kernel(newEng func(s []int8) Engine, M int, beta float64, theta Theta, opts Options) ([][]float64, error) {
	if err := theta.Validate(); err != nil {
		return nil, err
	}
	if M < 1 || M > 20 {
		return nil, fmt.Errorf("kernel: M=%d (expected 1..20)", M)
	}
	lo, hi := theta.Lengths(M)
	perWalk := 0.0
	for k := lo; k <= hi; k++ {
		perm := 1.0
		for i := range k {
			perm *= float64(M - i)
		}
		perWalk += perm
	}
	if leaves := math.Exp2(float64(M)) * math.Pow(perWalk, float64(2*theta.N)); leaves > maxKernelLeaves {
		return nil, fmt.Errorf("kernel: %.3g paths to enumerate (expected at most %.0g: lower M, ku or n)", leaves, float64(maxKernelLeaves))
	}
	start := make([]int8, M)
	for i := range start {
		start[i] = -1
	}
	en := &enumerator{
		eng:   newEng(start),
		opts:  opts,
		beta:  beta,
		logP:  logProbs(theta.TypeProbs()),
		n:     theta.N,
		lo:    lo,
		hi:    hi,
		fwd:   make([][2]float64, 2*theta.N),
		rev:   make([][2]float64, 2*theta.N),
		seqs:  make([][]int32, 2*theta.N),
		used:  make([][]bool, 2*theta.N),
		types: make([]WalkType, 1),
		memo:  map[uint64]walkEval{},
		spins: make([]int8, M),
	}
	if opts.Layout == Pairs {
		en.types = make([]WalkType, theta.N)
	}
	for w := range en.seqs {
		en.seqs[w] = make([]int32, 0, M)
		en.used[w] = make([]bool, M)
	}
	en.logLen = -float64(2*theta.N) * math.Log(float64(hi-lo+1))
	en.eng.SetBiases(theta.GL*beta, theta.GH*beta, opts.Weight)
	K := make([][]float64, 1<<M)
	for x := range K {
		en.x, en.cur = x, x
		en.row = make([]float64, 1<<M)
		en.walk(0, 0)
		K[x] = en.row
	}
	return K, nil
}

// enumerator walks the tree of forward paths depth first. A walk's
// forward and reverse log-probabilities depend only on the state before it
// and its sequence, so they are memoized on that pair: the engine replays
// each of the 2^M * (sequences per walk) pairs once, not once per leaf.
type enumerator struct {
	eng      Engine
	opts     Options
	beta     float64
	logP     [3]float64
	n        int
	lo, hi   int
	logLen   float64
	fwd, rev [][2]float64
	seqs     [][]int32
	used     [][]bool // per walk: bits already in its sequence
	types    []WalkType
	x, cur   int // start state and current state
	row      []float64
	memo     map[uint64]walkEval
	spins    []int8
	rev1     [1][2]float64
}

type walkEval struct {
	fwd, rev [2]float64
	dE       float64
}

// eval returns walk seq's log-probabilities and energy change from state
// cur (bit i set <=> s_i = +1).
func (en *enumerator) eval(seq []int32) walkEval {
	code := uint64(0) // digits l+1 in base M+1: unique across lengths
	for _, l := range seq {
		code = code*uint64(len(en.spins)+1) + uint64(l+1)
	}
	// cur < 2^20; the path limit keeps (M+1)^k far below 2^44.
	key := uint64(en.cur)<<44 | code
	if v, ok := en.memo[key]; ok {
		return v
	}
	for i := range en.spins {
		en.spins[i] = int8(2*((en.cur>>i)&1) - 1)
	}
	en.eng.SetSpins(en.spins)
	var v walkEval
	v.fwd, v.dE = en.eng.Replay(seq, false)
	// A FastReverser scores the reverse walk as the chain does, in place,
	// and is then undone; otherwise the walk is replayed backwards.
	if fr, ok := en.eng.(FastReverser); ok && fr.ReverseLogProbs(seq, []int{0, len(seq)}, en.rev1[:]) {
		v.rev = en.rev1[0]
		fr.Undo(seq)
	} else {
		v.rev, _ = en.eng.Replay(seq, true)
	}
	en.memo[key] = v
	return v
}

// walk enumerates walk w of every length from the current state.
func (en *enumerator) walk(w int, dE float64) {
	if w == 2*en.n {
		en.leaf(dE)
		return
	}
	for k := en.lo; k <= en.hi; k++ {
		en.seqs[w] = en.seqs[w][:0]
		en.bits(w, k, dE)
	}
}

// bits extends walk w's sequence of distinct bits to length k.
func (en *enumerator) bits(w, k int, dE float64) {
	seq := en.seqs[w]
	if len(seq) == k {
		v := en.eval(seq)
		en.fwd[w] = v.fwd
		en.rev[2*en.n-1-w] = v.rev
		mask := 0
		for _, l := range seq {
			mask |= 1 << l
		}
		en.cur ^= mask
		en.walk(w+1, dE+v.dE)
		en.cur ^= mask
		return
	}
	used := en.used[w]
	for l := range used {
		if used[l] {
			continue
		}
		used[l] = true
		en.seqs[w] = append(seq, int32(l))
		en.bits(w, k, dE)
		used[l] = false
	}
	en.seqs[w] = seq
}

// leaf adds the current path, under every type assignment, to the row.
func (en *enumerator) leaf(dE float64) {
	y := en.cur
	nt := len(en.types)
	combos := 1
	for range nt {
		combos *= 3
	}
	// The marginal rule's ratio does not depend on the types.
	lrMarginal := math.NaN()
	if en.opts.Accept == Marginal {
		lrMarginal = logAcceptRatio(en.logP, en.types, en.fwd, en.rev, en.opts.Layout, Marginal, en.beta*dE)
	}
	for c := range combos {
		lp := en.logLen
		for u, cc := 0, c; u < nt; u, cc = u+1, cc/3 {
			en.types[u] = WalkType(cc % 3)
			lp += en.logP[cc%3]
		}
		if math.IsInf(lp, -1) {
			continue
		}
		for w := range en.fwd {
			lp += en.fwd[w][walkBias(en.types, en.opts.Layout, en.n, w)]
		}
		prob := math.Exp(lp)
		lr := lrMarginal
		if en.opts.Accept != Marginal {
			lr = logAcceptRatio(en.logP, en.types, en.fwd, en.rev, en.opts.Layout, en.opts.Accept, en.beta*dE)
		}
		a := math.Exp(min(0, lr))
		en.row[y] += prob * a
		en.row[en.x] += prob * (1 - a)
	}
}

// CheckDetailedBalance returns max over x, y of |pi(x)K[x][y] -
// pi(y)K[y][x]|: zero (to rounding) for a reversible kernel.
func CheckDetailedBalance(K [][]float64, pi []float64) (maxViolation float64) {
	for x := range K {
		for y := range x {
			maxViolation = max(maxViolation, math.Abs(pi[x]*K[x][y]-pi[y]*K[y][x]))
		}
	}
	return maxViolation
}

// CheckStationary returns max over y of |sum_x pi(x)K[x][y] - pi(y)|.
func CheckStationary(K [][]float64, pi []float64) (maxViolation float64) {
	for y := range pi {
		s := 0.0
		for x := range K {
			s += pi[x] * K[x][y]
		}
		maxViolation = max(maxViolation, math.Abs(s-pi[y]))
	}
	return maxViolation
}

// CheckRows returns max over x of |sum_y K[x][y] - 1|.
func CheckRows(K [][]float64) (maxViolation float64) {
	for _, row := range K {
		s := 0.0
		for _, v := range row {
			s += v
		}
		maxViolation = max(maxViolation, math.Abs(s-1))
	}
	return maxViolation
}

// Boltzmann is the exact distribution pi(x) proportional to exp(-beta
// E(x)) over the 2^N states of m (N <= 20), indexed as in Kernel.
func Boltzmann(m *model.Ising, beta float64) []float64 {
	if m.N > 20 {
		panic("saw.Boltzmann: more than 20 variables")
	}
	pi := make([]float64, 1<<m.N)
	s := make([]int8, m.N)
	lmax := math.Inf(-1)
	for x := range pi {
		for i := range s {
			s[i] = int8(2*((x>>i)&1) - 1)
		}
		pi[x] = -beta * m.Energy(s)
		lmax = max(lmax, pi[x])
	}
	z := 0.0
	for x := range pi {
		pi[x] = math.Exp(pi[x] - lmax)
		z += pi[x]
	}
	for x := range pi {
		pi[x] /= z
	}
	return pi
}
