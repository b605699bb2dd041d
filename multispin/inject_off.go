//go:build !inject

package multispin

// The product's build: the tests' broken variant (inject_on.go, built only
// under the tag inject) is off, as a constant, so its branch compiles away.

const brokenShared = false
