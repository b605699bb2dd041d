//go:build !inject

package parallelsaw

import "runtime"

// The product's build. The tests' broken variants, hook and chaos policy
// (inject_on.go, built only under the tag inject) are off here: the
// switches are constants and injecting is false, so that their branches
// compile away, and an engine has no hook and no chaos.

const (
	injecting      = false
	brokenLines    = false
	brokenCatchUp  = false
	brokenSums     = false
	brokenWait     = false
	brokenInactive = false
)

// injected is the hook and the chaos policy of an engine built now: none.
func injected() (func(hookPoint, int, uint64), func(seq uint64, w int) int) { return nil, nil }

// numCPU is runtime.NumCPU.
func numCPU() int { return runtime.NumCPU() }

// runUnclaimed is brokenInactive's run of an inactive worker's command
// (inject_on.go): never called here, where brokenInactive is false.
func (sh *hub) runUnclaimed(p int, s uint64) {}
