//go:build !race

package handoff

// pollsPerRead is the polls between two clock reads of a spin (see
// spell.go): 128 polls of a cached line take well under a microsecond.
const pollsPerRead = 128
