//go:build inject

package denseising

// Built only under the tag inject (go test -tags inject), which the tests
// of the broken variants need; the product's build has inject_off.go.

// brokenReverse, set only by a test, leaves the picked spin's own weight
// out of each reverse normalizer: the kernel test must catch it.
var brokenReverse = false
