//go:build !race

package parallelsaw

const raceEnabled = false
