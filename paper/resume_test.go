package paper

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"sardonics/runner"
)

// TestResumeIsIdentical stops a paper run mid-experiment (the flag a
// signal raises), resumes it, and compares every trial's energy trace with
// an uninterrupted run's.
func TestResumeIsIdentical(t *testing.T) {
	base := t.TempDir()
	cfg := Config{Scale: 0.03, Only: "frustrated2d", Trials: 2, Seed: 5, Threads: 1}
	whole := cfg
	whole.Out = filepath.Join(base, "whole")
	if err := Run(whole, io.Discard); err != nil {
		t.Fatal(err)
	}
	var interrupted bool
	part := cfg
	part.Out = filepath.Join(base, "part")
	// Stops later in the run first; the last (0) stops before the first
	// trial, so the resume path always runs.
	for _, delay := range []time.Duration{150 * time.Millisecond, 30 * time.Millisecond, 5 * time.Millisecond, 0} {
		os.RemoveAll(part.Out)
		stop := new(atomic.Bool)
		part.Stop = stop
		if delay == 0 {
			stop.Store(true)
		}
		timer := time.AfterFunc(delay, func() { stop.Store(true) })
		err := Run(part, io.Discard)
		timer.Stop()
		if errors.Is(err, runner.ErrInterrupted) {
			interrupted = true
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !interrupted {
		t.Fatal("a run stopped before its first trial was not interrupted")
	}
	part.Stop = nil
	if err := Run(part, io.Discard); err != nil {
		t.Fatal(err)
	}
	var samplers []string
	for _, ex := range Experiments {
		if ex.Name == cfg.Only {
			samplers = ex.Samplers
		}
	}
	n := 0
	for _, s := range samplers {
		for tr := range cfg.Trials {
			rel := filepath.Join("frustrated2d", s, "trial-"+string(rune('0'+tr)), "energy.csv")
			a, err1 := os.ReadFile(filepath.Join(whole.Out, rel))
			b, err2 := os.ReadFile(filepath.Join(part.Out, rel))
			if err1 != nil || err2 != nil || len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: resumed trace differs from the uninterrupted one (%v, %v)", rel, err1, err2)
			}
			n++
		}
	}
	if _, err := os.Stat(filepath.Join(part.Out, "frustrated2d", "checkpoint")); err == nil {
		t.Error("checkpoints left behind after the resumed run finished")
	}
	if n == 0 {
		t.Fatal("no traces compared")
	}
}
