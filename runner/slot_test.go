package runner_test

import (
	"slices"
	"testing"

	"sardonics/model"
	"sardonics/runner"
	"sardonics/sawsampler"
)

// TestSlotConfigDisjointCPUs: trials running side by side with the parallel
// engine get disjoint CPU sets, and nothing is pinned when CPUs run short
// (--engine parallel: auto would keep so small an RBM on the serial engine).
func TestSlotConfigDisjointCPUs(t *testing.T) {
	m, err := model.RandomRBM(3, 2, 1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &runner.Config{Model: m, SAW: sawsampler.Config{Engine: "parallel", EngineThreads: 2, CPUs: []int{5, 6, 7, 8, 9}}}
	for w, want := range [][]int{{5, 6}, {7, 8}, nil} {
		wc, undo := runner.SlotConfig(cfg, "sardonics", w)
		undo()
		if !slices.Equal(wc.SAW.CPUs, want) {
			t.Errorf("slot %d: CPUs %v, want %v", w, wc.SAW.CPUs, want)
		}
	}
	wc, undo := runner.SlotConfig(cfg, "gibbs", 0)
	undo()
	if wc.SAW.CPUs != nil {
		t.Errorf("gibbs got CPUs %v", wc.SAW.CPUs)
	}
	if cfg.SAW.CPUs == nil || len(cfg.SAW.CPUs) != 5 {
		t.Error("SlotConfig changed the caller's config")
	}
}
