//go:build inject

package hybrid

// SetBrokenBeta makes SetBeta leave the Metropolis component at its old
// beta (on) and returns the function that puts the switch back.
func SetBrokenBeta(on bool) func() {
	old := brokenBeta
	brokenBeta = on
	return func() { brokenBeta = old }
}
