// Package parallelsaw is the partitioned parallel SAW engine for RBMs (the
// paper's "computational considerations"): each layer is split into P
// contiguous sections (section p holds visible units [pV/P, (p+1)V/P) and
// hidden units [pH/P, (p+1)H/P), so every flip gives every section the
// same work). Section p keeps its units' fixed-point and float64 fields,
// integer pick weights at both biases and their exact sums (a dense.Table)
// and its share of W's transpose in fixed point (its float64 couplings are
// read from the model's rows, not copied); each worker builds its own
// section on its own thread. From dense.CompactFrom weights on, that is
// all (4 bytes per weight of its own, over all sections, as the serial
// engine's), with dense's compact scheme: a visible flip rounds the
// section's slice of its row of W on the fly (dense.Table.UpdateFix), and
// a hidden flip changes the visible fixed-point fields and is logged; a
// visible float64 field adds the logged flips from its row of W
// (dense.CatchUp: the same additions in the same order, so the same bits)
// when read: for the energy of a walk's flips, which each section does for
// its own bits at the walk's last step (at once for P = 1), and when the
// state is saved. Refreshes recompute only the float64 fields, in one pass
// over the rows of W. Smaller models' sections also keep W in fixed point
// and the float64 transpose (16 bytes per weight) and update every field
// at every flip. The weights
// are package dense's (see its doc: weight classes of exact fixed-point
// fields, integer weights, exact uint64 sums), computed by the same kernel
// (dense.Table.Update).
//
// A Walk is one lockstep command (lockstep.go): every executor (the
// coordinator and each worker that claimed its section) runs the walk's
// flips on its sections in lockstep, each section publishing each step's
// sums and candidate on its own line, and every executor making the same
// pick from random words the coordinator drew beforehand, in the order
// the step-at-a-time protocol below draws them, so the walks are the
// same bit for bit; a flip then costs one exchange of lines instead of a
// round trip through the coordinator, whose bookkeeping runs once the
// walk is over. At its end the float64 fields of its visible flips (for
// its energy) are caught up, shared out between the sections by the
// length of each catch-up so that no section waits for another's. Replay, Flip and the other commands still go a step at a
// time:
//
// Per step: the coordinator (the goroutine calling Walk, which also runs
// section 0) flips the spin and publishes the bit and two random words;
// every section updates its part of the other layer (one pass of the
// kernel), reports its sums s_p at both biases and a candidate drawn within
// the section with probability w_l / s_p exactly (an exact uniform integer
// in [0, s_p) from the first random word that Lemire's method accepts; if
// both are rejected, probability about 2^-45, the coordinator draws it
// itself); the coordinator picks section p with probability s_p / sum s
// (an exact uniform integer in [0, sum s)) and takes its candidate. So the
// pick has probability w_l / sum s exactly, the distribution of package
// dense, and the walk reports the same log-probabilities, bit for bit (the
// sums are exact integers, whatever P). The random words come from the
// walk's stream, so the output is bit-identical for a fixed seed and P;
// energies differ between values of P only by the rounding of the float64
// fields. The engine also scores reverse paths in place and undoes rejected
// moves (saw.FastReverser, with dense.Record), as dense does.
//
// # Dense models
//
// DenseEngine is the same scheme for dense Ising models (model.Dense: SK
// glasses, dense QUBOs), on package denseising's weights and kernels. The
// N spins are split into P contiguous sections whose bounds are multiples
// of 64 (when N >= 64 P); section p keeps its spins' fixed-point fields,
// a denseising.Table, and its own int16 columns of the fixed-point matrix
// (N x its spins), built on its own worker from the model's rows, so the
// engine holds the model's matrix plus one int16 matrix, as the serial
// engine does. Per flip every section runs the kernel on its part of the
// flipped row; the coordinator then draws u in [0, Z) exactly as
// denseising does (Z the sum of the sections' exact sums) and finds the
// spin by the sections' sums and the owning section's table: the same u
// gives the same spin. A row's dot for the energy is the sum of the
// sections' parts when every partial sum of the row is a float64 (its
// couplings are multiples of 2^e and sum |J| < 2^53 2^e: any order then
// gives the same bits, which holds for nearly every row of a float32 SK
// matrix), else the coordinator computes it whole in Dot32's order. So
// the engine is denseising.Engine's chain bit for bit at every P (walks,
// log-probabilities, reverse scores, energies, states).
//
// Concurrency: sections 1..P-1 run on worker goroutines, each locked to its
// OS thread and pinned to cpus[p] when given (a pinning failure is not
// fatal; see PinError). Coordinator and workers synchronize by spinning on
// cache-line-padded atomic sequence numbers for a few tens of microseconds,
// then parking on a channel. Each section's command is claimed once, by
// its worker or by the coordinator: the coordinator runs the sections of
// workers that are parked or have no CPU rather than wait for them,
// leaves parked the workers whose last wake-up was wasted, and runs every
// section itself while its policy measures that the workers do not pay
// for their hand-offs (see sync.go).
// So a machine with fewer free CPUs than sections (other processes, or
// more sections than CPUs or than GOMAXPROCS) loses the speedup but
// neither stalls each flip nor changes a bit of the output. An Engine is
// not safe for concurrent use; call Close when done (an unreachable
// Engine's workers are also stopped by a cleanup).
package parallelsaw
