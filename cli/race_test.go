//go:build race

package cli

// raceEnabled: the race detector slows the work after a trial's last step
// (its observables, saved states) several times, and so its CPU.
const raceEnabled = true
