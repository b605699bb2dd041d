//go:build inject

package parallelsaw

import "runtime"

// Built only under the tag inject (go test -tags inject): the switches the
// tests set to show that their checks can fail (each a deliberately
// broken variant), and the hook, chaos policy and CPU count the stress
// tests inject into the engines' hand-offs. The product's build
// (inject_off.go) holds them as constants and no-ops.

// injecting is true in the tests' build: the engines' hook, chaos and
// broken variants run.
const injecting = true

// brokenLines, set only by a test, makes every step use the even lines: a
// fast executor then overwrites a line that a slow one has not read yet
// (the stress test must catch it).
var brokenLines = false

// brokenCatchUp, set only by a test, makes the engines built after it
// deal a lockstep walk's catch-ups (catchUpPhase) differently on each
// executor (ties to the executor's own section): some are done twice, some
// never, and the walk's energy reads fields never written.
var brokenCatchUp = false

// brokenSums, set only by a test, makes the walks record each section's
// sums after the release instead of right after the flip (the two sums
// a section reports) for the reverse scoring: the detailed-balance test
// must catch it.
var brokenSums = false

// hook, when set by a test, runs at every hookPoint of the engines built
// after it is set, with the section and the command's sequence number (a
// stand-in for the OS descheduling the thread there, and a probe).
var hook func(at hookPoint, p int, s uint64)

// brokenWait makes the coordinator take any wake-up as the end of the
// section it waits for, without re-checking (tests show that the stress
// check catches it).
var brokenWait = false

// brokenInactive makes the coordinator run an inactive worker's section
// without claiming it, as if a deactivated worker could not be spinning
// still (tests show that the stress check catches it).
var brokenInactive = false

// chaos, when set by a test, replaces the policy of the engines built
// after it is set: it gives each command's active count in 1..w (by its
// sequence number; w the threads that can run at once), so that workers
// are activated and deactivated all the time.
var chaos func(seq uint64, w int) int

// injected is the hook and the chaos policy of an engine built now.
func injected() (func(hookPoint, int, uint64), func(seq uint64, w int) int) { return hook, chaos }

// numCPU is runtime.NumCPU; stress tests raise it, so that a 2-CPU machine
// runs more active workers than it has CPUs.
var numCPU = runtime.NumCPU

// runUnclaimed is the broken variant's run of an inactive worker's
// command: without a claim, so the worker, if it is still spinning, can
// run it too.
func (sh *hub) runUnclaimed(p int, s uint64) {
	sc := sh.slots[p]
	sh.at(hookExec, p, s)
	sc.do()
	sh.at(hookExecuted, p, s)
	sh.ctl[p].ran = s
}
