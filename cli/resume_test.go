package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sardonics/runner"
)

// TestMain lets a test re-run this binary as the sardonics command, so
// signals can be delivered to a real child process.
func TestMain(m *testing.M) {
	if os.Getenv("SARDONICS_TEST_CHILD") == "1" {
		var args []string
		json.Unmarshal([]byte(os.Getenv("SARDONICS_TEST_ARGS")), &args)
		err := Run(args, os.Stdout, os.Stderr)
		if err != nil {
			os.Stderr.WriteString("sardonics: " + err.Error() + "\n")
		}
		os.Exit(ExitCode(err))
	}
	os.Exit(m.Run())
}

func child(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SARDONICS_TEST_CHILD=1", "SARDONICS_TEST_ARGS="+string(js))
	return cmd
}

func stripTimings(t *testing.T, dir string) []byte {
	s := readSummary(t, dir)
	s.Machine = ""
	for _, r := range s.Results {
		r.WallSeconds, r.CPUSeconds, r.ESSPerCPUSecond, r.NsPerFlip = 0, 0, 0, nil
		if r.Replica != nil && r.Replica.Auto != nil { // each run's own pilot
			a := *r.Replica.Auto
			a.PilotCPUSeconds, r.Replica.Auto = 0, &a
		}
		if r.Replica != nil && r.Replica.Cycles != nil {
			c := r.Replica.Cycles
			c.MeanCPUSeconds, c.MeanCPUShare, c.MaxCPUShare = 0, 0, 0
			for i := range c.Trials {
				c.Trials[i].CPUSeconds, c.Trials[i].CPUShare = 0, 0
			}
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// A SIGTERM delivered to a real child mid-run checkpoints; --resume then
// finishes with output byte-identical to an uninterrupted run (timings
// aside). The run is long enough (about 2 s) that a checkpoint always
// appears before it ends: with the tuner now costing milliseconds, 12000
// steps finished in 0.2 s, sometimes before the parent saw a checkpoint.
func TestSIGTERMResumeIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("a signal test: the full suite runs it")
	}
	base := t.TempDir()
	args := []string{"sample", "--model", "frustrated2d:L=24,seed=3", "--T", "1", "--sampler", "sardonics,gibbs",
		"--tune", "--iterations", "30", "--iter-steps", "100", "--refit-every", "5",
		"--steps", "120000", "--burn", "3000", "--trials", "2", "--seed", "5", "--quiet", "--marginals", "--save-every", "3"}
	full := filepath.Join(base, "full")
	if _, _, err := run(t, append(args, "--out", full)...); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(base, "part")
	stderr, err := termAtCheckpoint(t, part, append(args, "--out", part, "--checkpoint-every", "50ms")...)
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("child exit: %v (want status 143); stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--resume") {
		t.Errorf("no resume hint on stderr: %s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(part, "summary.json")); err == nil {
		t.Fatal("the interrupted run wrote a final summary")
	}
	if _, _, err := run(t, "sample", "--resume", part, "--quiet"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sardonics", "gibbs"} {
		for _, tr := range []string{"trial-0", "trial-1"} {
			for _, f := range []string{"energy.csv", "magnetization.csv", "marginals.npy", "correlations.npy"} {
				a, _ := os.ReadFile(filepath.Join(full, name, tr, f))
				b, _ := os.ReadFile(filepath.Join(part, name, tr, f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s %s: resumed %s differs from the uninterrupted one", name, tr, f)
				}
			}
		}
	}
	if a, b := stripTimings(t, full), stripTimings(t, part); !bytes.Equal(a, b) {
		t.Errorf("resumed summary differs:\n%s\n%s", a, b)
	}
}

// termAtCheckpoint runs sample args in a child process, sends it SIGTERM
// once its first checkpoint is in dir, and returns its stderr and its exit
// error.
// fullAndResumed runs args into base/full on one thread, and into
// base/part on two, stopped by SIGTERM at its first checkpoint and
// resumed (the test is skipped if the run finished first); it returns
// both folders.
func fullAndResumed(t *testing.T, base string, args []string) (full, part string) {
	t.Helper()
	full = filepath.Join(base, "full")
	if _, _, err := run(t, append(args, "--out", full, "--threads", "1")...); err != nil {
		t.Fatal(err)
	}
	part = filepath.Join(base, "part")
	termAtCheckpoint(t, part, append(args, "--out", part, "--checkpoint-every", "50ms", "--threads", "2")...)
	if _, err := os.Stat(filepath.Join(part, "summary.json")); err == nil {
		t.Skip("the run finished before the signal arrived")
	}
	if _, _, err := run(t, "sample", "--resume", part, "--quiet"); err != nil {
		t.Fatal(err)
	}
	return full, part
}

func termAtCheckpoint(t *testing.T, dir string, args ...string) (*bytes.Buffer, error) {
	t.Helper()
	cmd := child(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(dir, "checkpoint", "*", "*.ckpt")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no checkpoint appeared; stderr: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	return &stderr, err
}

func TestCorruptCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sample", "--model", "ferro2d:L=8", "--T", "2", "--sampler", "gibbs", "--steps", "3000",
		"--burn", "100", "--trials", "1", "--quiet", "--out", dir}
	if _, _, err := run(t, args...); err != nil {
		t.Fatal(err)
	}
	// Forge an interrupted state: a truncated checkpoint and no summary.
	os.Remove(filepath.Join(dir, "summary.json"))
	os.Remove(filepath.Join(dir, "gibbs", "trial-0", "stats.json"))
	ck := runner.CheckpointPath(dir, "gibbs", 0)
	os.MkdirAll(filepath.Dir(ck), 0o755)
	os.WriteFile(ck, []byte(strings.Repeat("0", 64)+"\n{\"version\":1,\"spi"), 0o644)
	_, _, err := run(t, "sample", "--resume", dir, "--quiet")
	if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), "corrupted") {
		t.Fatalf("truncated checkpoint: %v", err)
	}
}

func TestProgressLinesWithoutTerminal(t *testing.T) {
	old := runner.ProgressInterval
	runner.ProgressInterval = 20 * time.Millisecond
	defer func() { runner.ProgressInterval = old }()
	// Long enough (about 0.2 s even on a fast machine) for several lines.
	_, stderr, err := run(t, "sample", "--model", "ferro2d:L=30", "--T", "2.27", "--sampler", "metropolis",
		"--steps", "30000", "--burn", "100", "--trials", "1", "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "progress: ") || !strings.Contains(stderr, "steps/s, ETA") || strings.Contains(stderr, "\r") {
		t.Errorf("expected plain progress lines, got %q", stderr)
	}
}

func TestCPUProfileReadable(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	if _, _, err := run(t, "sample", "--model", "ferro2d:L=30", "--T", "2.27", "--sampler", "gibbs",
		"--steps", "2000", "--burn", "100", "--trials", "1", "--quiet", "--out", dir, "--cpuprofile", prof); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", prof).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "flat") {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
}

// TestResumeWallTotal: a resumed run's wall_seconds is the total of the
// interrupted process and the resumption (it counted the resumption
// alone): the interrupted process records its wall time, and the summary
// adds it.
func TestResumeWallTotal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "o")
	stderr, err := termAtCheckpoint(t, dir, "sample", "--model", "ferro2d:L=16", "--T", "2.5", "--sampler", "gibbs", "--steps", "400000",
		"--burn", "100", "--trials", "1", "--quiet", "--no-figures", "--checkpoint-every", "200ms", "--out", dir)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Skipf("the run was not interrupted (%v): %s", err, stderr)
	}
	before := readWall(dir)
	if !(before > 0.1) { // it ran until its first checkpoint at 200 ms
		t.Fatalf("the interrupted run recorded %v s of wall time", before)
	}
	start := time.Now()
	if _, _, err := run(t, "sample", "--resume", dir, "--quiet"); err != nil {
		t.Fatal(err)
	}
	resumed := time.Since(start).Seconds()
	r := readSummary(t, dir).Results[0]
	if !(r.WallSeconds > before) || !(r.WallSeconds < before+resumed) {
		t.Errorf("wall_seconds %v: want the interrupted %v s plus the resumption's (at most %v s)", r.WallSeconds, before, resumed)
	}
	// At least the trial's own time, which its checkpoint carried over.
	if tw := trialWall(dir, "gibbs", 0); !(r.WallSeconds >= tw) {
		t.Errorf("wall_seconds %v below its one trial's %v", r.WallSeconds, tw)
	}
	if _, err := os.Stat(wallFile(dir)); err == nil {
		t.Errorf("%s left after the run finished", wallFile(dir))
	}
}

// TestEarlierWall: the interrupted processes' wall time is split among the
// samplers by the time their trials spent (finished ones' stats.json,
// checkpoints); without a record, a sampler's trials' time over the trials
// run at once.
func TestEarlierWall(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "gibbs", "trial-0", "stats.json"), `{"wall_seconds": 1}`)
	write(filepath.Join(dir, "gibbs", "trial-1", "stats.json"), `{"wall_seconds": 3}`)
	ck := `{"version": 6, "record": {"sampler": "metropolis"}, "clock": {"wall_seconds": 2}}`
	sum := sha256.Sum256([]byte(ck))
	write(runner.CheckpointPath(dir, "metropolis", 0), hex.EncodeToString(sum[:])+"\n"+ck)
	cfg := &runner.Config{Samplers: []string{"gibbs", "metropolis"}, Trials: 2, Threads: 2}
	if got := earlierWall(cfg, dir, 0); got["gibbs"] != 2 || got["metropolis"] != 1 {
		t.Errorf("without a record: %v (want gibbs 2, metropolis 1)", got)
	}
	if err := saveWall(dir, 3); err != nil {
		t.Fatal(err)
	}
	if w := readWall(dir); w != 3 {
		t.Fatalf("readWall %v", w)
	}
	if got := earlierWall(cfg, dir, 3); got["gibbs"] != 2 || got["metropolis"] != 1 {
		t.Errorf("3 s recorded: %v (want gibbs 2, metropolis 1)", got)
	}
	if got := earlierWall(&runner.Config{Samplers: []string{"sw"}, Trials: 1}, dir, 3); got != nil {
		t.Errorf("no trial spent time: %v", got)
	}
}
