//go:build inject

package logz

// Built only under the tag inject (go test -tags inject), which the tests
// of the broken variants need; the product's build has inject_off.go.

// brokenBase and truncated break the estimators on purpose (tests show
// that the checks against exact enumeration catch them): a base ln Z off
// by brokenBase, and (AIS) the weight increments of the last tenth of
// the path left out, as if the annealing stopped short of the target.
var (
	brokenBase = 0.0
	truncated  = false
)

// brokenBAR gives the reverse works the forward works' sign (a sign
// convention slip): tests show the exact check catches it.
var brokenBAR = false
