//go:build !inject

package runner

// The product's build. The tests' hook and broken variant (inject_on.go,
// built only under the tag inject) are off here: at does nothing and
// brokenJoin is a constant, so that neither leaves code in Run.

const brokenJoin = false

func at(hookPoint) {}
