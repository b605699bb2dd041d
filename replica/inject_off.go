//go:build !inject

package replica

// The product's build. The tests' broken variants, hook and chaos policy
// (inject_on.go, built only under the tag inject) are off here: the
// switches are constants and injecting is false, so that their branches
// compile away, and a pool has no hook and no chaos.

const (
	injecting     = false
	brokenSwap    = false
	brokenLadder  = false
	brokenBarrier = false
	brokenCluster = 0
	brokenDrop    = false
	brokenScore   = 0
	brokenAwait   = false
	brokenActive  = false
)

// injected is the hook and the chaos policy of a pool built now: none.
func injected() (func(hookPoint, int), func(seq uint64) int) { return nil, nil }
