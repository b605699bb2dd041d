//go:build inject

package hybrid

// Built only under the tag inject (go test -tags inject), which the tests
// of the broken variants need; the product's build has inject_off.go.

// brokenBeta makes SetBeta leave the Metropolis component at its old beta
// (tests use it to show that the exact-enumeration checks catch a cycle
// with a component at the wrong temperature).
var brokenBeta = false
