package saw

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"sardonics/model"
)

// EngineKind is a SARDONICS engine as --engine names it. Each engine
// package registers its kinds (RegisterEngine, in an init function), and
// the sardonics sampler finds the one to build with EngineFor: adding an
// engine is a package and a RegisterEngine call, with no switch on names
// to edit. Several kinds may share a name when they serve different
// models ("dense": the RBM engine and the dense Ising engine).
type EngineKind struct {
	Name string
	// Rank orders the kinds: --engine auto takes the first whose Auto
	// takes the model, a name the first of that name that fits it.
	Rank int
	// Fits says why the engine cannot run m (nil: it can).
	Fits func(m *model.Model) error
	// Auto reports whether --engine auto runs it on m with threads engine
	// threads (at most 1: serial engines only).
	Auto func(m *model.Model, threads int) bool
	// Sections marks a partitioned engine, whose sections run on threads
	// of their own (sawsampler's CPU plan counts them).
	Sections bool
	// New builds the engine on m at spins init; a partitioned one with
	// sections sections, their workers pinned to cpus (nil: unpinned).
	New func(m *model.Model, init []int8, sections int, cpus []int) (Engine, error)
	// Cost is its measured cost model on m (Costed), for the registry's
	// readers; the engine reports it too.
	Cost func(m *model.Model) Cost
}

// ErrOtherModels wraps a Fits error that says the engine is for another
// class of models (an RBM engine asked to run an Ising model): EngineFor
// then reports another kind's reason, or the names that do fit.
var ErrOtherModels = errors.New("an engine for other models")

var (
	engineMu    sync.RWMutex
	engineKinds []EngineKind
)

// RegisterEngine adds an engine kind. A kind without a name, Fits, Auto or
// New, or a second kind of one name and rank, is a programmer error and
// panics.
func RegisterEngine(k EngineKind) {
	engineMu.Lock()
	defer engineMu.Unlock()
	if k.Name == "" || k.Name == "auto" || k.Fits == nil || k.Auto == nil || k.New == nil || k.Cost == nil {
		panic(fmt.Sprintf("saw: RegisterEngine(%q): an engine kind needs a name other than auto, Fits, Auto, New and Cost", k.Name))
	}
	for _, o := range engineKinds {
		if o.Name == k.Name && o.Rank == k.Rank {
			panic("saw: engine " + k.Name + " registered twice at one rank")
		}
	}
	engineKinds = append(engineKinds, k)
	slices.SortStableFunc(engineKinds, func(a, b EngineKind) int { return a.Rank - b.Rank })
}

// EngineNames are the registered names, in rank order, each once.
func EngineNames() []string {
	engineMu.RLock()
	defer engineMu.RUnlock()
	var out []string
	for _, k := range engineKinds {
		if !slices.Contains(out, k.Name) {
			out = append(out, k.Name)
		}
	}
	return out
}

// EngineFor is the kind --engine name runs on m with threads engine
// threads: for "auto" (or "") the first whose Auto takes m, else the
// first of that name that fits m; an error says why there is none.
func EngineFor(name string, m *model.Model, threads int) (EngineKind, error) {
	engineMu.RLock()
	defer engineMu.RUnlock()
	if name == "" || name == "auto" {
		for _, k := range engineKinds {
			if k.Auto(m, threads) {
				return k, nil
			}
		}
		return EngineKind{}, fmt.Errorf("no engine runs %s", m.Spec)
	}
	var first error
	for _, k := range engineKinds {
		if k.Name != name {
			continue
		}
		err := k.Fits(m)
		if err == nil {
			return k, nil
		}
		if first == nil && !errors.Is(err, ErrOtherModels) {
			first = err
		}
	}
	if first != nil {
		return EngineKind{}, first
	}
	var names []string
	for _, k := range engineKinds {
		if k.Fits(m) == nil && !slices.Contains(names, k.Name) {
			names = append(names, k.Name)
		}
	}
	return EngineKind{}, fmt.Errorf("--engine %q (expected auto, %s or %s for %s)", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1], m.Spec)
}
