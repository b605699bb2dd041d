//go:build !inject

package logz

// The product's build: the tests' broken variants (inject_on.go, built
// only under the tag inject) are off, as constants, so their branches
// compile away.

const (
	brokenBase = 0.0
	truncated  = false
	brokenBAR  = false
)
