package runner

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"sardonics/baseline"
	"sardonics/dense"
	"sardonics/model"
	"sardonics/parallelsaw"
	"sardonics/sampler"
	"sardonics/saw"
	"sardonics/sparse"
)

// Samplers lists the sampler names `sample` accepts.
var Samplers = []string{"sardonics", "gibbs", "metropolis", "sw", "blockgibbs"}

// SAWConfig configures the sardonics sampler.
type SAWConfig struct {
	Thetas        []saw.Theta // one fixed theta, or a policy's K kernels
	Options       saw.Options
	Engine        string // auto, tree, bucket (sparse); auto, dense, parallel (RBM)
	EngineThreads int    // sections of the parallel engine (0: auto)
	CPUs          []int  // CPUs the parallel engine may pin its workers to
}

// UsageError marks a problem with the command line (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ParseSamplers splits and checks a comma-separated sampler list.
func ParseSamplers(s string, m *model.Model) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		ok := false
		for _, k := range Samplers {
			ok = ok || k == name
		}
		if !ok {
			return nil, &UsageError{fmt.Sprintf("--sampler: unknown sampler %q (expected one of %s)", name, strings.Join(Samplers, ", "))}
		}
		if name == "blockgibbs" && m != nil && m.RBM == nil {
			return nil, &UsageError{fmt.Sprintf("--sampler blockgibbs needs a bipartite model (an RBM); %s is not one", m.Spec)}
		}
		if !seen[name] {
			out = append(out, name)
			seen[name] = true
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out, nil
}

// rank orders samplers canonically, so that results and merged reports list
// them in the same order however they were named.
func rank(name string) int {
	for i, s := range Samplers {
		if s == name {
			return i
		}
	}
	return len(Samplers)
}

// closer is implemented by engines that own goroutines.
type closer interface{ Close() }

// NewChain builds the named sampler's chain at state init. The returned
// function releases the chain's resources (worker goroutines).
func NewChain(name string, m *model.Model, beta float64, sc SAWConfig, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
	nop := func() {}
	switch name {
	case "gibbs":
		c, err := baseline.NewGibbs(m, beta, r, init)
		return c, nop, err
	case "metropolis":
		c, err := baseline.NewMetropolis(m, beta, r, init)
		return c, nop, err
	case "sw":
		c, err := baseline.NewSW(m, beta, r, init)
		return c, nop, err
	case "blockgibbs":
		c, err := baseline.NewBlockGibbs(m, beta, r, init)
		return c, nop, err
	case "sardonics":
		eng, err := newEngine(m, sc, init)
		if err != nil {
			return nil, nop, err
		}
		done := nop
		if c, ok := eng.(closer); ok {
			done = c.Close
		}
		c, err := saw.NewChain(eng, beta, sc.Thetas, sc.Options, r)
		if err != nil {
			done()
			return nil, nop, err
		}
		return c, done, nil
	}
	return nil, nop, &UsageError{fmt.Sprintf("unknown sampler %q", name)}
}

func newEngine(m *model.Model, sc SAWConfig, init []int8) (saw.Engine, error) {
	kind := sc.Engine
	if kind == "" {
		kind = "auto"
	}
	if m.RBM != nil {
		switch kind {
		case "auto", "dense":
			if kind == "auto" && sc.EngineThreads > 1 {
				return parallelsaw.New(m.RBM, init, sc.EngineThreads, sc.CPUs)
			}
			return dense.New(m.RBM, init), nil
		case "parallel":
			p := sc.EngineThreads
			if p < 1 {
				p = max(1, len(sc.CPUs))
			}
			return parallelsaw.New(m.RBM, init, p, sc.CPUs)
		case "tree", "bucket":
			return sparse.New(m.Ising, init, kind)
		}
		return nil, &UsageError{fmt.Sprintf("--engine %q (expected auto, dense, parallel, tree or bucket)", kind)}
	}
	switch kind {
	case "auto", "tree", "bucket":
		e, err := sparse.New(m.Ising, init, kind)
		if err != nil {
			return nil, &UsageError{"--engine: " + err.Error()}
		}
		return e, nil
	}
	return nil, &UsageError{fmt.Sprintf("--engine %q (expected auto, tree or bucket for a sparse model)", kind)}
}

// CanonicalOrder sorts sampler names in the order of Samplers.
func CanonicalOrder(names []string) []string {
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}
