// Package handoff prices and paces the hand-offs between the threads of
// one chain: replica's worker pool (a round of members) and parallelsaw's
// sections (a command per flip). It holds what a hand-off costs on this
// machine (Price: a ping-pong between two locked threads, measured once
// per process), the spinning wait that notices when its thread loses its
// CPU and counts its own CPU time (Spell), and the policy that decides how
// many threads take part in the next rounds (Policy): the one that
// measured fastest, a larger count tried now and then with exponential
// back-off, one thread alone whenever a thread saw itself descheduled.
//
// Only callers in this module (replica, parallelsaw, bench) use it. A
// Policy and a Spell belong to one goroutine each; Policy.Lost and
// Cached are safe for concurrent use.
package handoff
