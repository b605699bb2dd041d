package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"sardonics/summary"
)

// clusterRecord is a trial's cluster-move record as JSON (stats.json's
// replica.cluster).
func clusterRecord(t *testing.T, dir, name string, trial int) []byte {
	t.Helper()
	r := readStats(t, dir, name, trial).Replica
	if r == nil || r.Cluster == nil {
		t.Fatalf("%s trial %d in %s: no cluster record", name, trial, dir)
	}
	j, _ := json.Marshal(r.Cluster)
	return j
}

// TestClusterResumeIsIdentical (issue 35): replica exchange with the
// cluster move, every kernel, interrupted (a SIGTERM at a checkpoint,
// during or after the burn-in that chooses the rungs) and resumed with
// another number of threads, writes files byte-identical to an
// uninterrupted run's; stats.json says per rung whether the move ran and
// what it did, summary.json pools it.
func TestClusterResumeIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	base := t.TempDir()
	samplers := []string{"metropolis", "gibbs", "sardonics", "hybrid"}
	args := []string{"sample", "--model", "spinglass2d:L=6,seed=2", "--beta", "2", "--sampler", strings.Join(samplers, ","),
		"--replicas", "4", "--beta-min", "0.3", "--overlap", "--cluster", "icm", "--mix", "1:3",
		"--steps", "6000", "--burn", "1500", "--trials", "2", "--seed", "5", "--quiet", "--no-figures"}
	full, part := fullAndResumed(t, base, args)
	for _, name := range samplers {
		for tr := range 2 {
			sameFiles(t, summary.TrialDir(part, name, tr), summary.TrialDir(full, name, tr), "energy.csv", "overlap.csv", "walk.csv")
			if a, b := clusterRecord(t, full, name, tr), clusterRecord(t, part, name, tr); !bytes.Equal(a, b) {
				t.Errorf("%s trial %d: cluster records differ:\n%s\n%s", name, tr, a, b)
			}
		}
	}
	if a, b := stripTimings(t, full), stripTimings(t, part); !bytes.Equal(a, b) {
		t.Errorf("resumed summary differs:\n%.300s\n%.300s", a, b)
	}
	for _, r := range readSummary(t, full).Results {
		c := r.Replica.Cluster
		if c == nil || c.Move != "icm" || len(c.Rungs) != 4 {
			t.Fatalf("%s: summary cluster %+v", r.Sampler, c)
		}
		moves := 0.0
		for _, k := range c.Rungs {
			moves += k.MovesPerTrial
			if k.OnTrials > 0 && k.MovesPerTrial > 0 && (k.MeanSize == nil || *k.MeanSize < 1 || *k.MeanShare > 1) {
				t.Errorf("%s: rung %+v", r.Sampler, k)
			}
		}
		if moves == 0 {
			t.Errorf("%s: no cluster move after the burn-in", r.Sampler)
		}
	}
}

// TestClusterSplitTrials: trial t of a run with the cluster move is the
// same whether it runs among others or alone (--trials 1 --trial-offset
// t), and report merges the split runs into the same cluster summary.
func TestClusterSplitTrials(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sample", "--model", "spinglass2d:L=5,seed=1", "--T", "0.5", "--sampler", "metropolis", "--replicas", "4", "--overlap",
		"--cluster", "icm", "--steps", "2000", "--burn", "400", "--seed", "2", "--quiet", "--no-figures"}
	both := filepath.Join(dir, "both")
	if _, _, err := run(t, append(args, "--trials", "2", "--out", both)...); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for tr := range 2 {
		d := filepath.Join(dir, fmt.Sprint(tr))
		if _, _, err := run(t, append(args, "--trials", "1", "--trial-offset", fmt.Sprint(tr), "--out", d)...); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, summary.TrialDir(d, "metropolis", tr), summary.TrialDir(both, "metropolis", tr), "energy.csv", "overlap.csv")
		if a, b := clusterRecord(t, d, "metropolis", tr), clusterRecord(t, both, "metropolis", tr); !bytes.Equal(a, b) {
			t.Errorf("trial %d alone and among others: cluster records differ:\n%s\n%s", tr, a, b)
		}
		parts = append(parts, d)
	}
	merged := filepath.Join(dir, "merged")
	if _, _, err := run(t, append([]string{"report", "--no-figures", "--out", merged}, parts...)...); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(readSummary(t, both).Results[0].Replica.Cluster)
	b, _ := json.Marshal(readSummary(t, merged).Results[0].Replica.Cluster)
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"on_trials"`)) {
		t.Errorf("merged cluster summary:\n%s\nof the run of both trials:\n%s", b, a)
	}
}

// TestClusterBudgetResume: a --budget run with the cluster move,
// interrupted and resumed, chooses its rungs at the end of the burn-in its
// CPU fixed, and --steps and --burn of its record repeat it bit for bit,
// the cluster record included.
func TestClusterBudgetResume(t *testing.T) {
	if testing.Short() {
		t.Skip("a --budget run of real CPU seconds: the full suite runs it")
	}
	dir := t.TempDir()
	part := filepath.Join(dir, "part")
	base := []string{"sample", "--model", "spinglass2d:L=8,seed=4", "--T", "0.5", "--sampler", "metropolis", "--replicas", "4",
		"--overlap", "--cluster", "icm", "--trials", "1", "--seed", "3", "--quiet", "--no-figures"}
	stderr, err := termAtCheckpoint(t, part, append(base, "--budget", "2s", "--checkpoint-every", "50ms", "--out", part)...)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("child exit: %v (want status 143); stderr: %s", err, stderr.String())
	}
	if _, _, err := run(t, "sample", "--resume", part, "--quiet"); err != nil {
		t.Fatal(err)
	}
	b := readSummary(t, part).Results[0].Budget
	full := filepath.Join(dir, "full")
	if _, stderr, err := run(t, append(base, "--steps", fmt.Sprint(b.TrialSteps[0]), "--burn", fmt.Sprint(b.TrialBurnIn[0]), "--out", full)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	sameFiles(t, summary.TrialDir(part, "metropolis", 0), summary.TrialDir(full, "metropolis", 0), "energy.csv", "overlap.csv", "walk.csv")
	x, y := clusterRecord(t, part, "metropolis", 0), clusterRecord(t, full, "metropolis", 0)
	if !bytes.Equal(x, y) {
		t.Errorf("cluster record of the budget run:\n%s\nof its --steps repetition:\n%s", x, y)
	}
	if !bytes.Contains(x, []byte(`"decided":true`)) {
		t.Errorf("the budget run did not choose its rungs: %s", x)
	}
}

// TestClusterUsageErrors: --cluster needs replicas, two sets, a burn-in
// to choose its rungs (or --cluster-beta-min) and a sparse model; dense
// models are refused with the reason.
func TestClusterUsageErrors(t *testing.T) {
	common := []string{"sample", "--steps", "100", "--trials", "1", "--quiet", "--out", t.TempDir(), "--sampler", "metropolis", "--beta", "1"}
	with := func(a []string, b ...string) []string { return append(slices.Clone(a), b...) }
	lattice := []string{"--model", "spinglass2d:L=4"}
	re := with(lattice, "--replicas", "4")
	for _, c := range []struct {
		args []string
		want string
	}{
		{with(lattice, "--cluster", "icm"), "need --replicas R"},
		{with(lattice, "--cluster-beta-min", "0.5"), "need --replicas R"},
		{with(re, "--cluster", "icm", "--burn", "20"), "give --overlap for the second set"},
		{with(re, "--overlap", "--cluster", "houdayer", "--burn", "20"), `--cluster "houdayer" (expected icm)`},
		{with(re, "--overlap", "--cluster-beta-min", "0.5", "--burn", "20"), "--cluster-beta-min 0.5 needs --cluster icm"},
		{with(re, "--overlap", "--cluster", "icm", "--cluster-beta-min", "-1", "--burn", "20"), "--cluster-beta-min -1"},
		{with(re, "--overlap", "--cluster", "icm", "--cluster-beta-min", "3", "--burn", "20"), "above the target beta 1"},
		{with(re, "--overlap", "--cluster", "icm", "--burn", "0"), "chooses its replicas from what it measures during the burn-in"},
		{[]string{"--model", "sk:N=40,seed=1", "--replicas", "4", "--overlap", "--cluster", "icm", "--burn", "20"}, "--cluster icm cannot help on sk:N=40,seed=1: it is dense"},
		{[]string{"--model", "rbm-random:V=30,H=20,seed=1", "--replicas", "4", "--overlap", "--cluster", "icm", "--burn", "20"}, "its visible and hidden units are densely coupled"},
	} {
		_, _, err := run(t, with(common, c.args...)...)
		if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v (exit %d), want exit 2 with %q", c.args, err, ExitCode(err), c.want)
		}
	}
	// --cluster-beta-min needs no burn-in.
	if _, _, err := run(t, with(with(common, re...), "--overlap", "--cluster", "icm", "--cluster-beta-min", "0.5", "--burn", "0")...); err != nil {
		t.Errorf("--cluster-beta-min without a burn-in: %v", err)
	}
}
