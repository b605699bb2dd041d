//go:build inject

package replica

// Built only under the tag inject (go test -tags inject): the switches the
// tests set to show that their checks can fail (each a deliberately
// broken variant), and the hook and chaos policy the stress tests inject
// into the pools' hand-offs. The product's build (inject_off.go) holds
// them as constants and no-ops.

// injecting is true in the tests' build: the pools' hook, chaos and
// broken variants run.
const injecting = true

// brokenSwap drops the temperature difference from the swap rule (tests
// use it to show that the exact-enumeration check catches a wrong rule).
var brokenSwap = false

// brokenLadder makes VarianceLadder space its rungs by an off-by-one,
// L/R instead of L/(R-1), and place the target rung too, short of the
// target (tests use it to show that the exact-enumeration check catches a
// ladder that moves wrongly).
var brokenLadder = false

// brokenBarrier makes Barrier sum the acceptances instead of the
// rejections (tests use it to show that the exact-enumeration check
// catches a wrong estimator).
var brokenBarrier = false

// brokenCluster selects a deliberately wrong move (tests show that the
// exact checks catch it): 1 adds the seed's first neighbour off the move's
// side to the cluster; 2 draws the seed among all sites and flips a seed
// off the side alone in both replicas; 3 takes the q = +1 side on a graph
// that is not Even (a model with fields, where it changes E_a + E_b).
var brokenCluster = 0

// brokenDrop makes the halving drop the best candidate at each rung and
// keep the rest (tests use it to show that their check of the choice
// fails).
var brokenDrop = false

// brokenScore makes the tuner score whole assignments by the target's
// energy (1) or prefer the lower slow-observable score (2) (tests use it
// to show that their checks of the choice fail).
var brokenScore = 0

// hook, when set by a test, runs at every hookPoint of the pools built
// after it is set, with the thread's index (a stand-in for the OS
// descheduling the thread there).
var hook func(hookPoint, int)

// chaos, when set by a test, replaces the policy of the pools built
// after it is set: it gives the active count of each round (by seq), so
// that workers are activated and deactivated all the time.
var chaos func(seq uint64) int

// brokenAwait restores the wake-up handling of ddf44e3 (a token ends the
// wait without re-checking the condition); tests use it to show that the
// stress test catches the bug.
var brokenAwait = false

// brokenActive makes workers learn the active count from a word the
// coordinator stores after the round's seq, not from the round word: a
// worker can then take a round with the previous count, run a share it
// no longer owns and be left out of the wait (tests show the stress test
// catches it).
var brokenActive = false

// injected is the hook and the chaos policy of a pool built now.
func injected() (func(hookPoint, int), func(seq uint64) int) { return hook, chaos }
