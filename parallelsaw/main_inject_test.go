//go:build inject

package parallelsaw

// TestMain's schedules: every worker active in its first run, chaos in its
// second.
func init() {
	schedule = func(run int) { chaos = [...]func(uint64, int) int{allActive, chaotic}[run] }
}

// allActive is a chaos policy that keeps every worker active.
func allActive(_ uint64, w int) int { return w }

// chaotic is a chaos policy: the active count is drawn from 1..w for each
// stretch of 8 commands, and for one command in 8 on its own, so that
// workers are activated and deactivated all the time, often in the middle
// of their spin, and also keep a count long enough to claim commands.
func chaotic(s uint64, w int) int {
	h := (s / 8) * 0x9e3779b97f4a7c15
	if g := s * 0xbf58476d1ce4e5b9; g>>61 == 0 {
		h = g
	}
	return 1 + int((h>>32)%uint64(w))
}
