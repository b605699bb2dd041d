package runner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"sardonics/model"
	"sardonics/sampler"
	"sardonics/sawsampler"
)

// ParseSamplers splits and checks a comma-separated sampler list against
// the registry (sampler.Names), returning the names in canonical order.
func ParseSamplers(s string, m *model.Model) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		k, ok := sampler.Lookup(name)
		if !ok {
			return nil, &sampler.UsageError{Msg: fmt.Sprintf("--sampler: unknown sampler %q (expected one of %s)", name, strings.Join(sampler.Names(), ", "))}
		}
		if k.Check != nil && m != nil {
			if err := k.Check(m); err != nil {
				return nil, &sampler.UsageError{Msg: "--sampler " + err.Error()}
			}
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return sampler.CanonicalOrder(out), nil
}

// NewChain builds the named sampler's chain at state init (see
// sampler.Kind.New; sc is the sardonics sampler's settings, which other
// samplers ignore). The returned function releases the chain's resources.
func NewChain(name string, m *model.Model, beta float64, sc sawsampler.Config, r *rand.PCG, init []int8) (sampler.Chain, func(), error) {
	k, ok := sampler.Lookup(name)
	if !ok {
		return nil, func() {}, &sampler.UsageError{Msg: fmt.Sprintf("unknown sampler %q", name)}
	}
	return k.New(m, beta, sc, r, init)
}

// kindOf is the registered sampler name (every name the runner is given
// was checked by ParseSamplers or comes from a run's own records).
func kindOf(name string) sampler.Kind {
	k, _ := sampler.Lookup(name)
	return k
}
