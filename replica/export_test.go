package replica

// SetBrokenSwap switches the deliberately wrong swap rule on and returns
// the function that switches it off.
func SetBrokenSwap(on bool) func() {
	old := brokenSwap
	brokenSwap = on
	return func() { brokenSwap = old }
}
