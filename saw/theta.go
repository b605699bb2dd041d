package saw

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Theta is one setting of the move's parameters (SPEC section 3): walk
// lengths uniform on {KL..KU}, biases gamma_L = GL*beta and gamma_H =
// GH*beta, type probabilities PLL, PHL, PLH (normalized when used) and N
// walks per block (or N pairs).
type Theta struct {
	KL, KU        int
	GL, GH        float64
	PLL, PHL, PLH float64
	N             int
}

// DefaultTheta is used when no parameters are given: short walks (lengths
// 1..10), biases 5% either side of beta, one walk per block. Of the fixed
// settings measured by scripts/mixing.sh (10 trials each), it gave the best
// ESS per CPU-second on spinglass3d:L=9 at beta = 1 and 2 and on
// frustrated2d:L=60 at T = 0.5, and 0.7x the best (ku = 40) at T = 1.
// kl = 1 keeps the chain irreducible.
var DefaultTheta = Theta{KL: 1, KU: 10, GL: 0.95, GH: 1.05, PLL: 0.4, PHL: 0.3, PLH: 0.3, N: 1}

var thetaKeys = []string{"kl", "ku", "gl", "gh", "pll", "phl", "plh", "n"}

// ParseTheta reads the text form "kl=10,ku=40,gl=0.95,gh=1.05,pll=0.5,
// phl=0.3,plh=0.2,n=2". Missing keys keep DefaultTheta's values; the
// result is validated.
func ParseTheta(s string) (Theta, error) {
	t := DefaultTheta
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return Theta{}, fmt.Errorf("theta: %q is not key=value (expected e.g. kl=10)", kv)
		}
		if seen[k] {
			return Theta{}, fmt.Errorf("theta: key %q given twice", k)
		}
		seen[k] = true
		var err error
		switch k {
		case "kl":
			t.KL, err = strconv.Atoi(v)
		case "ku":
			t.KU, err = strconv.Atoi(v)
		case "n":
			t.N, err = strconv.Atoi(v)
		case "gl":
			t.GL, err = strconv.ParseFloat(v, 64)
		case "gh":
			t.GH, err = strconv.ParseFloat(v, 64)
		case "pll":
			t.PLL, err = strconv.ParseFloat(v, 64)
		case "phl":
			t.PHL, err = strconv.ParseFloat(v, 64)
		case "plh":
			t.PLH, err = strconv.ParseFloat(v, 64)
		default:
			return Theta{}, fmt.Errorf("theta: unknown key %q (expected one of %s)", k, strings.Join(thetaKeys, ", "))
		}
		if err != nil {
			return Theta{}, fmt.Errorf("theta: %s=%q is not a number", k, v)
		}
	}
	if err := t.Validate(); err != nil {
		return Theta{}, err
	}
	return t, nil
}

// String is the text form ParseTheta reads; floats round-trip exactly.
func (t Theta) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return fmt.Sprintf("kl=%d,ku=%d,gl=%s,gh=%s,pll=%s,phl=%s,plh=%s,n=%d",
		t.KL, t.KU, f(t.GL), f(t.GH), f(t.PLL), f(t.PHL), f(t.PLH), t.N)
}

// Validate checks kl >= 1, ku >= kl, n >= 1, finite positive gammas and
// finite non-negative type probabilities with a positive sum.
func (t Theta) Validate() error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	switch {
	case t.KL < 1:
		return fmt.Errorf("theta: kl=%d (expected kl >= 1)", t.KL)
	case t.KU < t.KL:
		return fmt.Errorf("theta: ku=%d (expected ku >= kl=%d)", t.KU, t.KL)
	case t.N < 1:
		return fmt.Errorf("theta: n=%d (expected n >= 1)", t.N)
	case bad(t.GL) || t.GL <= 0:
		return fmt.Errorf("theta: gl=%v (expected a finite gl > 0)", t.GL)
	case bad(t.GH) || t.GH <= 0:
		return fmt.Errorf("theta: gh=%v (expected a finite gh > 0)", t.GH)
	}
	for i, p := range [3]float64{t.PLL, t.PHL, t.PLH} {
		if bad(p) || p < 0 {
			return fmt.Errorf("theta: %s=%v (expected a finite probability >= 0)", thetaKeys[4+i], p)
		}
	}
	if !(t.PLL+t.PHL+t.PLH > 0) {
		return fmt.Errorf("theta: pll+phl+plh=0 (expected a positive sum)")
	}
	return nil
}

// Lengths is the range of walk lengths on M bits: {KL..KU} clamped to M.
func (t Theta) Lengths(M int) (lo, hi int) {
	return min(t.KL, M), min(t.KU, M)
}

// Irreducible reports whether the move can reach every state of M bits:
// walks of length 1, or of two different lengths (whose combinations of
// two walks change any single bit), are needed. The CLI warns when false.
func (t Theta) Irreducible(M int) bool {
	lo, hi := t.Lengths(M)
	return lo == 1 || hi > lo
}

// TypeProbs is (pLL, pHL, pLH) normalized, indexed by WalkType.
func (t Theta) TypeProbs() [3]float64 {
	z := t.PLL + t.PHL + t.PLH
	return [3]float64{t.PLL / z, t.PHL / z, t.PLH / z}
}

// Layout orders a move's walks (SPEC section 3).
type Layout int

const (
	// Blocks is N walks at bias a, then N at bias b, one type per move
	// (the authors' implementation; the default).
	Blocks Layout = iota
	// Pairs is N units, each a walk at bias a then one at b, each unit
	// with its own type (the paper's text).
	Pairs
)

func (l Layout) String() string {
	switch l {
	case Blocks:
		return "blocks"
	case Pairs:
		return "pairs"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// ParseLayout reads the --layout flag: "blocks" or "pairs".
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "blocks":
		return Blocks, nil
	case "pairs":
		return Pairs, nil
	}
	return 0, fmt.Errorf("unknown layout %q (expected blocks or pairs)", s)
}

// Accept is the acceptance rule (SPEC section 3). Both are exact.
type Accept int

const (
	// Marginal sums the proposal density over types (Rao-Blackwellized;
	// the authors' implementation; the default).
	Marginal Accept = iota
	// Joint treats the type as an auxiliary variable: its probability
	// ratio P(reverse types)/P(types) enters the acceptance.
	Joint
	// jointNoTypeRatio is Joint without the type ratio: a deliberately
	// wrong rule, used by tests to show the exact-kernel check catches it.
	jointNoTypeRatio
)

func (a Accept) String() string {
	switch a {
	case Marginal:
		return "marginal"
	case Joint:
		return "joint"
	}
	return fmt.Sprintf("Accept(%d)", int(a))
}

// ParseAccept reads the --accept flag: "marginal" or "joint".
func ParseAccept(s string) (Accept, error) {
	switch s {
	case "marginal":
		return Marginal, nil
	case "joint":
		return Joint, nil
	}
	return 0, fmt.Errorf("unknown accept rule %q (expected marginal or joint)", s)
}

// Options are the move's discrete choices; the zero value is the default
// (blocks, logistic, marginal).
type Options struct {
	Layout Layout // Blocks (default) or Pairs
	Weight Weight // Logistic (default) or Exp
	Accept Accept // Marginal (default) or Joint
}
