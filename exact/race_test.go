//go:build race

package exact

const raceEnabled = true
