//go:build race

package handoff

// pollsPerRead is the polls between two clock reads of a spin (see
// spell.go), fewer under the race detector, where a poll costs about a
// hundred times more.
const pollsPerRead = 8
