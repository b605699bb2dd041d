//go:build !inject

package hybrid

// The product's build. The tests' broken variant (inject_on.go, built only
// under the tag inject) is off here, as a constant, so that its branch
// compiles away.

const brokenBeta = false
