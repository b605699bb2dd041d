//go:build inject

package runner

// Built only under the tag inject (go test -tags inject), which the stress
// test and its broken variant need; the product's build has
// inject_off.go.

// hook, when set by a test (before Run, reset after it returns), runs at
// every hookPoint.
var hook func(hookPoint)

// brokenJoin makes Run return without waiting for its trial goroutines
// (tests show that the stress test catches it).
var brokenJoin = false

// at runs hook at h.
func at(h hookPoint) {
	if hook != nil {
		hook(h)
	}
}
