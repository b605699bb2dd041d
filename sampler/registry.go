package sampler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"sardonics/model"
)

// Kind is a sampler as the command line, the runner and the tools see it:
// its name, the models it applies to and how to build its chain. Each
// sampler registers its Kind in an init function of its own package, so
// that adding one is a file and a Register call, with no list to edit.
type Kind struct {
	Name string
	// Rank orders samplers in results and tables (smaller first).
	Rank int
	// Check says why the sampler cannot run on m; nil means it can.
	Check func(m *model.Model) error
	// New builds a chain on m at inverse temperature beta from the
	// spins init, drawing only from r. opts holds settings of the
	// sampler's own (nil: its defaults). The returned function releases
	// the chain's resources (worker threads).
	New func(m *model.Model, beta float64, opts any, r *rand.PCG, init []int8) (Chain, func(), error)
	// CPUs is how many CPUs one chain built with opts occupies (nil: 1),
	// so that trials side by side can be given disjoint CPUs.
	CPUs func(m *model.Model, opts any) int
	// Tunable marks a sampler whose kernel the adaptation (sample --tune)
	// sets: its chains take the thetas the runner and the tuner give them.
	Tunable bool
	// WorkClock marks a sampler whose steps cost different amounts from
	// rung to rung (hybrid's cycles): inside replica exchange it swaps on
	// the work clock by default, one sweep-equivalent per round.
	WorkClock bool
	// Untempered, when set, says why the sampler's chains cannot change
	// their temperature in place (sampler.Tempered), which replica
	// exchange needs.
	Untempered string
	// Pilot names the sampler whose chains run --replicas auto's pilot
	// in this one's place (a cheaper kernel that finds the same ladder);
	// "": its own.
	Pilot string
	// DefaultCycle is, for a sampler whose chains alternate two kernels
	// in cycles (a replica.Cycler: hybrid), its default cycle on m with
	// opts: a Metropolis sweeps, then k SARDONICS moves; replica exchange
	// and a single chain's cycle tuning try candidates around it. nil for
	// the other samplers.
	DefaultCycle func(m *model.Model, opts any) (a, k int)
}

var (
	mu    sync.RWMutex
	kinds = map[string]Kind{}
)

// Register adds a sampler. Registering a name twice, or a Kind without a
// name or a New function, is a programmer error and panics.
func Register(k Kind) {
	mu.Lock()
	defer mu.Unlock()
	if k.Name == "" || k.New == nil {
		panic(fmt.Sprintf("sampler: Register(%+v): a Kind needs a Name and a New function", k))
	}
	if _, dup := kinds[k.Name]; dup {
		panic("sampler: " + k.Name + " registered twice")
	}
	kinds[k.Name] = k
}

// Lookup returns the sampler registered under name.
func Lookup(name string) (Kind, bool) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Names lists the registered samplers in their canonical order (Rank,
// then name).
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	ks := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b Kind) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return names
}

// ChainCPUs is k.CPUs(m, opts), or 1 without a CPUs function.
func (k Kind) ChainCPUs(m *model.Model, opts any) int {
	if k.CPUs == nil {
		return 1
	}
	return max(1, k.CPUs(m, opts))
}

// CanonicalOrder sorts sampler names in the registry's order
// (sampler.Names); unknown names go last.
func CanonicalOrder(names []string) []string {
	order := Names()
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

// UsageError marks a problem with a sampler's settings as the command
// line gave them (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
