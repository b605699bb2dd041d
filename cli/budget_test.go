package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"sardonics/summary"
)

// readStats reads a trial's stats.json.
func readStats(t *testing.T, dir, name string, trial int) *summary.TrialRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(summary.TrialDir(dir, name, trial), "stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := &summary.TrialRecord{}
	if err := json.Unmarshal(b, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// sameFiles reports the files of trial folders a and b that differ.
func sameFiles(t *testing.T, a, b string, files ...string) {
	t.Helper()
	for _, f := range files {
		x, errA := os.ReadFile(filepath.Join(a, f))
		y, errB := os.ReadFile(filepath.Join(b, f))
		if errA != nil || errB != nil || len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: %s and %s differ (%v, %v; %d and %d bytes)", f, a, b, errA, errB, len(x), len(y))
		}
	}
}

// checkTrialCPU checks that every trial of a budget run spent its share
// of thread CPU: at least the share (it stops at the first reading of its
// clock past it) and at most 5% (plus 80 ms of building and summing; 25%
// and 100 ms under the race detector, which slows the summing) more. The
// building and summing take about 20 ms alone, but while the whole suite
// runs on two cores a trial of a 0.3 s share was seen at 0.36 s: the
// margin covers that, and a trial that does not stop at its clock still
// overshoots by far more.
func checkTrialCPU(t *testing.T, r *summary.Result) {
	t.Helper()
	b := r.Budget
	if b == nil {
		t.Fatalf("%s: no budget in summary.json", r.Sampler)
	}
	over, extra := 1.05, 0.08
	if raceEnabled {
		over, extra = 1.25, 0.1
	}
	sum := 0.0
	for i, c := range b.TrialCPUSeconds {
		sum += c
		if !(c >= b.CPUSecondsPerTrial && c <= over*b.CPUSecondsPerTrial+extra) {
			t.Errorf("%s trial %d: %.4g s of thread CPU for a share of %.4g s", r.Sampler, r.TrialIDs[i], c, b.CPUSecondsPerTrial)
		}
	}
	if d := sum - r.CPUSeconds; d*d > 1e-18 {
		t.Errorf("%s: cpu_seconds %v is not the trials' %v", r.Sampler, r.CPUSeconds, sum)
	}
}

// TestBudgetEqualCPU (issue 23, item 2): every sampler's trials get the
// same thread CPU, however much their steps cost; the summary and the
// table show the steps and the work each did, the steps and burn-in of
// every trial are recorded, and --steps and --burn of a trial's record
// repeat its chain bit for bit (energy, magnetization, saved states and
// observables).
func TestBudgetEqualCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("a --budget run of real CPU seconds: the full suite runs it")
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	base := []string{"sample", "--model", "frustrated2d:L=16,seed=2", "--T", "1.5", "--seed", "7", "--quiet", "--no-figures"}
	out, stderr, err := run(t, append(base, "--sampler", "sardonics,metropolis,sw", "--budget", "0.6s", "--trials", "2",
		"--save-states", "--save-every", "7", "--out", a)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	s := readSummary(t, a)
	if len(s.Results) != 3 {
		t.Fatalf("%d results", len(s.Results))
	}
	for _, r := range s.Results {
		checkTrialCPU(t, r)
		b := r.Budget
		if b.CPUSecondsPerTrial != 0.3 || b.BurnFraction != 0.2 || len(b.TrialSteps) != 2 || len(b.TrialBurnIn) != 2 {
			t.Fatalf("%s: budget %+v", r.Sampler, b)
		}
		if r.Steps != 0 || r.StepsNote == "" || r.BurnInNote == "" {
			t.Errorf("%s: steps %d (%q), burn-in note %q: want null with a note", r.Sampler, r.Steps, r.StepsNote, r.BurnInNote)
		}
		if r.TotalSteps != int64(b.TrialSteps[0]+b.TrialSteps[1]) || !(r.Sweeps > 0) {
			t.Errorf("%s: total steps %d, sweeps %v for trials of %v steps", r.Sampler, r.TotalSteps, r.Sweeps, b.TrialSteps)
		}
		for i, id := range r.TrialIDs {
			st := readStats(t, a, r.Sampler, id)
			if st.Budget == nil || st.Budget.Steps != b.TrialSteps[i] || st.Budget.BurnIn != b.TrialBurnIn[i] || st.Budget.BurnCPUSeconds == nil ||
				*st.Budget.BurnCPUSeconds < 0.2*0.3 || *st.Budget.BurnCPUSeconds > 0.25*0.3 || st.Budget.StepCap != "" {
				t.Errorf("%s trial %d: stats.json budget %+v, summary's steps %d burn-in %d", r.Sampler, id, st.Budget, b.TrialSteps[i], b.TrialBurnIn[i])
			}
			if st.SavedStates != (b.TrialSteps[i]-b.TrialBurnIn[i])/7 {
				t.Errorf("%s trial %d: %d saved states, want (%d - %d) / 7", r.Sampler, id, st.SavedStates, b.TrialSteps[i], b.TrialBurnIn[i])
			}
		}
		if !strings.Contains(b.Reproduce, fmt.Sprintf("--trial-offset 1 --steps %d --burn %d", b.TrialSteps[1], b.TrialBurnIn[1])) {
			t.Errorf("%s: reproduce %q", r.Sampler, b.Reproduce)
		}
	}
	// Metropolis sweeps: flips / N is its steps.
	if m := s.Results[1]; m.Sampler != "metropolis" || m.Sweeps != float64(m.TotalSteps) {
		t.Errorf("%s: %v sweeps in %d steps", m.Sampler, m.Sweeps, m.TotalSteps)
	}
	if !strings.Contains(out, "steps flips/step     sweeps") || !strings.Contains(out, "--budget: 0.3 s of thread CPU per trial") ||
		!strings.Contains(out, "budget.reproduce") {
		t.Errorf("table and budget note:\n%s", out)
	}
	// A trial's record repeats it: trial 1 of each sampler alone.
	for _, r := range s.Results {
		b := r.Budget
		c := filepath.Join(dir, "c-"+r.Sampler)
		if _, stderr, err := run(t, append(base, "--sampler", r.Sampler, "--trials", "1", "--trial-offset", "1",
			"--steps", fmt.Sprint(b.TrialSteps[1]), "--burn", fmt.Sprint(b.TrialBurnIn[1]), "--save-states", "--save-every", "7", "--out", c)...); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		sameFiles(t, summary.TrialDir(a, r.Sampler, 1), summary.TrialDir(c, r.Sampler, 1), "energy.csv", "magnetization.csv", "states.npy", "samples.npz")
		x, y := readStats(t, a, r.Sampler, 1).Observables, readStats(t, c, r.Sampler, 1).Observables
		if x == nil || y == nil || *x != *y {
			t.Errorf("%s: observables %+v, repeated %+v", r.Sampler, x, y)
		}
	}
}

// TestBudgetReplicaResume: a budget run of replica exchange with an
// adaptive ladder, stopped by SIGTERM after a checkpoint and resumed,
// spends its share of CPU over both processes, and --steps and --burn of
// its record repeat it bit for bit: the ladder adapted during the first
// half of the burn-in and the swaps were counted after it, as in a run of
// those steps.
func TestBudgetReplicaResume(t *testing.T) {
	if testing.Short() {
		t.Skip("a --budget run of real CPU seconds: the full suite runs it")
	}
	dir := t.TempDir()
	part := filepath.Join(dir, "part")
	base := []string{"sample", "--model", "frustrated2d:L=10,seed=4", "--T", "0.7", "--sampler", "metropolis", "--replicas", "4",
		"--ladder", "adaptive", "--swap-every", "2", "--trials", "1", "--seed", "3", "--quiet", "--no-figures"}
	stderr, err := termAtCheckpoint(t, part, append(base, "--budget", "2s", "--checkpoint-every", "50ms", "--out", part)...)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("child exit: %v (want status 143); stderr: %s", err, stderr.String())
	}
	ck, err := os.ReadFile(filepath.Join(part, "checkpoint", "metropolis", "trial-0.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "sample", "--resume", part, "--quiet"); err != nil {
		t.Fatal(err)
	}
	r := readSummary(t, part).Results[0]
	checkTrialCPU(t, r)
	b := r.Budget
	if b.TrialBurnIn[0]%2 != 0 || b.TrialBurnIn[0] >= b.TrialSteps[0] || r.Replica == nil {
		t.Fatalf("budget %+v (an adaptive ladder's burn-in is twice its adaptation), replica %+v", b, r.Replica)
	}
	var c struct {
		Record struct {
			Steps int `json:"steps"`
		} `json:"record"`
	}
	if err := json.Unmarshal(ck[bytes.IndexByte(ck, '\n')+1:], &c); err != nil || c.Record.Steps == 0 || c.Record.Steps >= b.TrialSteps[0] {
		t.Fatalf("the checkpoint held %d of %d steps (%v): not a resumed run", c.Record.Steps, b.TrialSteps[0], err)
	}
	full := filepath.Join(dir, "full")
	if _, stderr, err := run(t, append(base, "--steps", fmt.Sprint(b.TrialSteps[0]), "--burn", fmt.Sprint(b.TrialBurnIn[0]), "--out", full)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	sameFiles(t, summary.TrialDir(part, "metropolis", 0), summary.TrialDir(full, "metropolis", 0), "energy.csv", "magnetization.csv", "walk.csv")
	x, y := readStats(t, part, "metropolis", 0).Replica, readStats(t, full, "metropolis", 0).Replica
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	if !bytes.Equal(xj, yj) {
		t.Errorf("replica record of the budget run:\n%s\nof its --steps repetition:\n%s", xj, yj)
	}
}

// TestBudgetRefusedTooLarge: a budget whose every-step traces (--save-trace) cannot fit on disk
// is refused before the run, with the pilot's estimate.
func TestBudgetRefusedTooLarge(t *testing.T) {
	old := diskRoom
	diskRoom = func(string) (float64, float64, bool) { return 50e6, 1e6, true }
	defer func() { diskRoom = old }()
	// Kept draws are bounded, but --save-trace writes every step.
	_, _, err := run(t, "sample", "--model", "ferro2d:L=4", "--T", "2", "--sampler", "gibbs", "--budget", "1h", "--trials", "2", "--save-trace", "--out", t.TempDir())
	if ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "gibbs would make about") || !strings.Contains(err.Error(), "give a smaller --budget") {
		t.Fatalf("err %v (exit %d), want a refusal with the estimate", err, ExitCode(err))
	}
}

// TestBudgetReport: report merges budget runs split across processes
// (--trials 1 --trial-offset T, each --budget B/K) as one run of budget B
// over K trials, and refuses to mix them with a run of --steps.
func TestBudgetReport(t *testing.T) {
	dir := t.TempDir()
	var dirs []string
	for i := range 2 {
		d := filepath.Join(dir, fmt.Sprint(i))
		if _, stderr, err := run(t, "sample", "--model", "ferro2d:L=8", "--T", "2.5", "--sampler", "gibbs", "--budget", "100ms",
			"--trials", "1", "--trial-offset", fmt.Sprint(i), "--quiet", "--no-figures", "--out", d); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		dirs = append(dirs, d)
	}
	m := filepath.Join(dir, "merged")
	out, _, err := run(t, append([]string{"report", "--no-figures", "--out", m}, dirs...)...)
	if err != nil {
		t.Fatal(err)
	}
	r := readSummary(t, m).Results[0]
	if r.Budget == nil || len(r.Budget.TrialSteps) != 2 || r.Budget.CPUSecondsPerTrial != 0.1 || !strings.Contains(out, "--budget: 0.1 s") {
		t.Errorf("merged budget %+v\n%s", r.Budget, out)
	}
	checkTrialCPU(t, r)
	s := filepath.Join(dir, "steps")
	if _, _, err := run(t, "sample", "--model", "ferro2d:L=8", "--T", "2.5", "--sampler", "gibbs", "--steps", "1000",
		"--trials", "1", "--trial-offset", "5", "--quiet", "--no-figures", "--out", s); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, "report", "--no-figures", "--out", filepath.Join(dir, "m2"), dirs[0], s)
	if ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "budget per trial (CPU s): 0 (") || !strings.Contains(err.Error(), " vs 0.1 (") {
		t.Errorf("report of a budget run and a run of --steps: %v", err)
	}
}

// TestBudgetHybridTunes: a single hybrid chain chooses its cycle at half
// its burn-in; in a budget run that is after the steps of the first half
// of the burn-in's share of CPU, and the burn-in twice those steps, so
// that --steps and --burn of its record repeat it bit for bit, the
// choice and what every candidate did included.
func TestBudgetHybridTunes(t *testing.T) {
	if testing.Short() {
		t.Skip("a --budget run of real CPU seconds: the full suite runs it")
	}
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a"), filepath.Join(dir, "c")
	base := []string{"sample", "--model", "frustrated2d:L=12,seed=2", "--T", "1", "--sampler", "hybrid", "--tune-cycles", "0.05",
		"--trials", "1", "--seed", "4", "--quiet", "--no-figures"}
	if _, stderr, err := run(t, append(base, "--budget", "1s", "--out", a)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	r := readSummary(t, a).Results[0]
	checkTrialCPU(t, r)
	b := r.Budget
	st := readStats(t, a, "hybrid", 0)
	if b.TrialBurnIn[0]%2 != 0 || st.Cycles == nil {
		t.Fatalf("budget %+v, cycles %+v: want an even burn-in and a chosen cycle", b, st.Cycles)
	}
	if _, stderr, err := run(t, append(base, "--steps", fmt.Sprint(b.TrialSteps[0]), "--burn", fmt.Sprint(b.TrialBurnIn[0]), "--out", c)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	sameFiles(t, summary.TrialDir(a, "hybrid", 0), summary.TrialDir(c, "hybrid", 0), "energy.csv", "magnetization.csv")
	x, _ := json.Marshal(st.Cycles.Rungs) // what each candidate did, and the choice (its CPU times are measured)
	y, _ := json.Marshal(readStats(t, c, "hybrid", 0).Cycles.Rungs)
	if !bytes.Equal(x, y) {
		t.Errorf("cycles of the budget run:\n%s\nof its --steps repetition:\n%s", x, y)
	}
}
