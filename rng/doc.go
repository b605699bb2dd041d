// Package rng derives the independent random streams of sardonics: trial t of
// a run with seed s draws only from Stream(s, t), so splitting trials across
// processes reproduces one run exactly. Streams are math/rand/v2 PCGs, whose
// state marshals for checkpoints. A stream is not safe for concurrent use.
package rng
