package runner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	_ "sardonics/baseline" // registers gibbs, metropolis, sw, blockgibbs
	_ "sardonics/hybrid"   // registers hybrid
	"sardonics/model"
	"sardonics/sampler"
	"sardonics/saw"
)

// SAWConfig configures the sardonics sampler.
type SAWConfig struct {
	Thetas        []saw.Theta // one fixed theta, or a policy's K kernels
	Options       saw.Options
	Engine        string // auto, tree, bucket (sparse); auto, dense, parallel (RBM)
	EngineThreads int    // sections of the parallel engine (0: auto)
	CPUs          []int  // CPUs the parallel engine may pin its workers to
	// Mix is the hybrid sampler's cycle (Metropolis sweeps, SARDONICS
	// moves per step; zero: its default), which it reads through
	// HybridCycle: the runner hands every sampler these settings.
	Mix [2]int
}

// HybridCycle is the hybrid sampler's cycle (hybrid.CycleSource).
func (sc SAWConfig) HybridCycle() (a, m int) { return sc.Mix[0], sc.Mix[1] }

// SAWThetas are the thetas the sardonics chains run (hybrid.ThetaSource).
func (sc SAWConfig) SAWThetas() []saw.Theta { return sc.Thetas }

// UsageError marks a problem with the command line (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ParseSamplers splits and checks a comma-separated sampler list against
// the registry (sampler.Names), returning the names in canonical order.
func ParseSamplers(s string, m *model.Model) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		k, ok := sampler.Lookup(name)
		if !ok {
			return nil, &UsageError{fmt.Sprintf("--sampler: unknown sampler %q (expected one of %s)", name, strings.Join(sampler.Names(), ", "))}
		}
		if k.Check != nil && m != nil {
			if err := k.Check(m); err != nil {
				return nil, &UsageError{"--sampler " + err.Error()}
			}
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return CanonicalOrder(out), nil
}

// closer is implemented by engines that own goroutines.
type closer interface{ Close() }

// NewChain builds the named sampler's chain at state init (see
// sampler.Kind.New; sc is the sardonics sampler's settings, which other
// samplers ignore). The returned function releases the chain's resources.
func NewChain(name string, m *model.Model, beta float64, sc SAWConfig, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
	k, ok := sampler.Lookup(name)
	if !ok {
		return nil, func() {}, &UsageError{fmt.Sprintf("unknown sampler %q", name)}
	}
	return k.New(m, beta, sc, r, init)
}

// kindOf is the registered sampler name (every name the runner is given
// was checked by ParseSamplers or comes from a run's own records).
func kindOf(name string) sampler.Kind {
	k, _ := sampler.Lookup(name)
	return k
}

// CanonicalOrder sorts sampler names in the registry's order
// (sampler.Names); unknown names go last.
func CanonicalOrder(names []string) []string {
	order := sampler.Names()
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		return len(order)
	}
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}
