package bench

import (
	"math"
	"testing"
	"time"
)

// The suite measures something: every line has a positive finite value in
// its unit, and per-flip lines count real flips.
func TestRunMeasures(t *testing.T) {
	rep, err := Run(Config{Budget: 50 * time.Millisecond, Only: "gibbs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lines) == 0 || rep.Machine == "" {
		t.Fatalf("no lines or no machine: %+v", rep)
	}
	for _, l := range rep.Lines {
		if !(l.Value > 0) || math.IsInf(l.Value, 0) || l.Steps <= 0 || l.CPUSec <= 0 {
			t.Errorf("%s on %s: %v %s after %d steps", l.Name, l.Model, l.Value, l.Unit, l.Steps)
		}
	}
}

// The hand-off lines price both kinds of hand-off on this machine: a
// park/wake in nanoseconds, and a spin unless the partner thread got no
// CPU (then n/a, never 0).
func TestHandoffLines(t *testing.T) {
	rep, err := Run(Config{Budget: 50 * time.Millisecond, Only: "handoff"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lines) != 2 {
		t.Fatalf("%d lines (want 2): %+v", len(rep.Lines), rep.Lines)
	}
	for _, l := range rep.Lines {
		if l.Value == 0 || l.Value < 0 || math.IsInf(l.Value, 0) || !math.IsNaN(l.Value) && l.Steps <= 0 {
			t.Errorf("%s: %v %s after %d round trips", l.Name, l.Value, l.Unit, l.Steps)
		}
	}
}
