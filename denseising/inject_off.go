//go:build !inject

package denseising

// The product's build. The tests' broken variant (inject_on.go, built only
// under the tag inject) is off here, as a constant, so that its branch
// compiles away.

const brokenReverse = false
