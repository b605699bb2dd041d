//go:build inject

package multispin

// Built only under the tag inject (go test -tags inject), which the test
// of the broken variant needs; the product's build has inject_off.go.

// brokenShared, set only by a test, gives every chain the same random bit
// in each digit (Isakov's "approach one"): chains that meet stay together,
// which TestSharedBitsCorrelate must see.
var brokenShared = false
