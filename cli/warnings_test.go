package cli

import (
	"strings"
	"testing"
)

// TestSampleWarns: a run whose trials disagree (a cold ferromagnet from
// random starts: each trial freezes into its own domains) ends with a
// warning on stderr and in summary.json; a converged run has none.
func TestSampleWarns(t *testing.T) {
	dir := t.TempDir()
	_, stderr, err := run(t, "sample", "--model", "ferro2d:L=24", "--T", "1", "--sampler", "metropolis",
		"--steps", "300", "--burn", "0", "--trials", "4", "--quiet", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	s := readSummary(t, dir)
	if !strings.Contains(stderr, "sardonics: warning: sampler metropolis: split-R-hat") || len(s.Warnings) == 0 {
		t.Fatalf("no R-hat warning; stderr %q, summary warnings %q", stderr, s.Warnings)
	}
	dir = t.TempDir()
	_, stderr, err = run(t, "sample", "--model", "ferro2d:L=8", "--T", "5", "--sampler", "metropolis",
		"--steps", "4000", "--burn", "200", "--trials", "4", "--quiet", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := readSummary(t, dir); strings.Contains(stderr, "warning") || len(s.Warnings) != 0 {
		t.Fatalf("converged run warned: %q %q", stderr, s.Warnings)
	}
}
