package tune

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sardonics/exact"
	"sardonics/internal/stattest"
	"sardonics/model"
	"sardonics/saw"
)

func TestParseBounds(t *testing.T) {
	def := DefaultSpace()
	s, err := ParseBounds(def, "kl=1:20, gh=1:1.2")
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Dims[0]; d.Lo != 1 || d.Hi != 20 || !d.Integer {
		t.Errorf("kl bounds %+v, want integer [1, 20]", d)
	}
	if d := s.Dims[3]; d.Lo != 1 || d.Hi != 1.2 {
		t.Errorf("gh bounds %+v, want [1, 1.2]", d)
	}
	for i := range s.Dims {
		if i != 0 && i != 3 && s.Dims[i] != def.Dims[i] {
			t.Errorf("dimension %s changed to %+v", Names[i], s.Dims[i])
		}
	}
	if def.Dims[0].Hi != 70 {
		t.Errorf("ParseBounds modified its input: kl hi %v", def.Dims[0].Hi)
	}
	if s, err := ParseBounds(def, "  "); err != nil || len(s.Dims) != len(def.Dims) {
		t.Errorf("empty override: %v, %v", s, err)
	}
	for _, bad := range []string{
		"kk=1:2",          // unknown name
		"kl=20:1",         // lo > hi
		"gl=1.1:0.9",      // lo > hi, real dimension
		"kl=1",            // no range
		"kl=a:3",          // not a number
		"kl=1:Inf",        // not finite
		"kl=1:70,ku=2:10", // ku cannot reach kl's top
		"n=1.5:3",         // integer dimension with a fractional bound
	} {
		if _, err := ParseBounds(def, bad); err == nil {
			t.Errorf("ParseBounds(%q) returned no error", bad)
		} else if !strings.Contains(err.Error(), "--bounds") {
			t.Errorf("ParseBounds(%q): error %q does not name the flag", bad, err)
		}
	}
}

func TestThetaOf(t *testing.T) {
	th := ThetaOf([]float64{2.4, 9.6, 0.95, 1.01, 0.2, 0.3, 0.5, 2.5})
	want := saw.Theta{KL: 2, KU: 10, GL: 0.95, GH: 1.01, PLL: 0.2, PHL: 0.3, PLH: 0.5, N: 3}
	if th != want {
		t.Errorf("ThetaOf rounded to %+v, want %+v", th, want)
	}
	th = ThetaOf([]float64{1, 2, 0.9, 1, 0, 0, 0, 1})
	if th.PLL != 1 || th.PHL != 1 || th.PLH != 1 {
		t.Errorf("all-zero type probabilities became %v, %v, %v, want uniform", th.PLL, th.PHL, th.PLH)
	}
	if err := th.Validate(); err != nil {
		t.Error(err)
	}
	// Every point of the unit cube maps to a valid theta inside Table I
	// with ku >= kl and gh >= gl.
	s := DefaultSpace()
	r := rand.New(rand.NewPCG(1, 2))
	u := make([]float64, s.Len())
	for i := range 1000 {
		for j := range u {
			u[j] = r.Float64()
		}
		th := ThetaOf(s.ToParams(u))
		switch {
		case th.KL < 1 || th.KL > 70 || th.KU < 2 || th.KU > 120 || th.N < 1 || th.N > 5:
			t.Fatalf("point %d: integer parameters out of bounds: %v", i, th)
		case th.GL < 0.89 || th.GL > 1.05 || th.GH < 0.9 || th.GH > 1.15:
			t.Fatalf("point %d: biases out of bounds: %v", i, th)
		case th.KU < th.KL || th.GH < th.GL:
			t.Fatalf("point %d: order violated: %v", i, th)
		}
		for _, p := range []float64{th.PLL, th.PHL, th.PLH} {
			if p < 0 || p > 1 {
				t.Fatalf("point %d: type probability out of [0, 1]: %v", i, th)
			}
		}
		if err := th.Validate(); err != nil {
			t.Fatalf("point %d: %v", i, err)
		}
	}
}

func TestReward(t *testing.T) {
	const n, lag = 10000, 100
	r := rand.New(rand.NewPCG(3, 4))
	iid := make([]float64, n)
	ar := make([]float64, n)
	var x float64
	for i := range n {
		iid[i] = r.NormFloat64()
		x = 0.99*x + r.NormFloat64()
		ar[i] = x
	}
	ri, ra := Reward(iid, lag), Reward(ar, lag)
	t.Logf("reward: iid %.4f, AR(1) phi=0.99 %.4f", ri, ra)
	if !(ri > 0.95 && ri <= 1) {
		t.Errorf("iid reward %v, want near 1", ri)
	}
	if !(ra < 0.7 && ra < ri-0.3) {
		t.Errorf("AR(1) reward %v, want far below the iid %v", ra, ri)
	}
	if got := Reward([]float64{1}, lag); got != 0 {
		t.Errorf("reward of a single energy %v, want 0", got)
	}
}

func TestPolicyFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	thetas := []saw.Theta{
		{KL: 3, KU: 40, GL: 0.9312345678901234, GH: 1.1, PLL: 0.25, PHL: 0.5, PLH: 0.125, N: 2},
		saw.DefaultTheta,
	}
	p := Policy{Spec: "ising:n=6", Beta: 1.5}
	for _, th := range thetas {
		p.Kernels = append(p.Kernels, th.String())
	}
	path := filepath.Join(dir, "policy.json")
	if err := WritePolicy(path, p); err != nil {
		t.Fatal(err)
	}
	back, got, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, thetas) || back.Spec != p.Spec || back.Beta != p.Beta {
		t.Errorf("read back %v (spec %q, beta %v), want %v (%q, %v)", got, back.Spec, back.Beta, thetas, p.Spec, p.Beta)
	}
	for name, text := range map[string]string{
		"truncated":  `{"kernels": ["kl=1,ku=2"`,
		"empty":      `{"kernels": []}`,
		"not theta":  `{"kernels": ["kl=1,ku=2", "hello"]}`,
		"invalid":    `{"kernels": ["kl=5,ku=2"]}`,
		"wrong type": `{"kernels": 3}`,
	} {
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadPolicy(bad); err == nil {
			t.Errorf("%s policy file accepted", name)
		} else if !strings.Contains(err.Error(), bad) {
			t.Errorf("%s policy file: error %q does not name the file", name, err)
		}
	}
	if _, _, err := LoadPolicy(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing policy file accepted")
	}
}

// After adaptation the chain runs the policy's mixture of kernels, chosen
// independently of the state: it must still sample the Boltzmann
// distribution exactly.
func TestAdaptedChainExact(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of statistics or comparison: the full suite runs it")
	}
	const M, beta, steps, thin = 6, 1.0, 200000, 10
	r := rand.New(rand.NewPCG(5, 6))
	var edges []model.Edge
	for i := range M {
		for j := i + 1; j < M; j++ {
			edges = append(edges, model.Edge{I: int32(i), J: int32(j), W: 0.5 * r.NormFloat64()})
		}
	}
	h := make([]float64, M)
	for i := range h {
		h[i] = 0.5 * r.NormFloat64()
	}
	m, err := model.NewIsing(M, edges, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	init := make([]int8, M)
	for i := range init {
		init[i] = 1
	}
	ch, err := saw.NewChain(saw.NewNaive(m, init), beta, []saw.Theta{saw.DefaultTheta}, saw.Options{}, rand.NewPCG(7, 8))
	if err != nil {
		t.Fatal(err)
	}
	// kl <= 2 < ku keeps every kernel irreducible on 6 spins (walks of two
	// lengths), so the mixture is too, whatever the policy draws.
	space, err := ParseBounds(DefaultSpace(), "kl=1:2,ku=3:6")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Space: space, Iterations: 6, IterSteps: 30, Kernels: 20}
	res, err := Adapt(cfg, ch, rand.NewPCG(9, 10), ch.Step)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tried) != 6 || len(res.Rewards) != 6 || len(res.Policy) != 20 {
		t.Fatalf("adaptation recorded %d settings, %d rewards, %d kernels; want 6, 6, 20",
			len(res.Tried), len(res.Rewards), len(res.Policy))
	}
	for _, th := range res.Policy {
		if !th.Irreducible(M) {
			t.Fatalf("policy kernel %v is not irreducible on %d spins", th, M)
		}
	}
	probs, err := exact.Probs(m, beta)
	if err != nil {
		t.Fatal(err)
	}
	// Consecutive states are correlated, which inflates Pearson's statistic;
	// every thin-th state is close to independent.
	counts := make([]float64, len(probs))
	for range steps / thin {
		for range thin {
			ch.Step()
		}
		var k int
		for i, s := range ch.Spins() {
			if s > 0 {
				k |= 1 << i
			}
		}
		counts[k]++
	}
	stat, df, p := stattest.ChiSquare(counts, probs)
	t.Logf("chi-square %.1f on %d df, p = %.3g", stat, df, p)
	if !(p > 1e-4) {
		t.Errorf("visited states do not follow the exact distribution: chi-square %.1f on %d df, p = %.3g", stat, df, p)
	}
}

func TestCostRewardChargesFlips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 200)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	cheap, dear := CostReward(x, 50, 10, 100), CostReward(x, 50, 1000, 100)
	if !(cheap > dear) || math.Abs(cheap-dear-math.Log(100)) > 1e-12 {
		t.Errorf("cost reward: %v at 10 flips/step, %v at 1000", cheap, dear)
	}
	stuck := make([]float64, 200)
	if CostReward(stuck, 50, 10, 100) >= cheap {
		t.Error("a stuck chain scores as well as a moving one")
	}
}
