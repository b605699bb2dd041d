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
	"time"
)

// ignoringChild is child run through a shell that ignores SIGINT first, as
// a batch script's background job inherits it: Go keeps an inherited
// ignore unless the program asks for the signal.
func ignoringChild(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command("sh", "-c", `trap '' INT; exec "$0" -test.run='^$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "SARDONICS_TEST_CHILD=1", "SARDONICS_TEST_ARGS="+string(js))
	return cmd
}

// interrupt starts cmd, sends SIGINT after wait, and returns how long the
// process took to end after it, its exit code and its stderr.
func interrupt(t *testing.T, cmd *exec.Cmd, wait time.Duration) (time.Duration, int, string) {
	t.Helper()
	return interruptWhen(t, cmd, (&sleeper{d: wait}).done)
}

// interruptWhen starts cmd, sends SIGINT as soon as ready() (asked every
// 5 ms), and returns how long the process took to end after it, its exit
// code and its stderr.
func interruptWhen(t *testing.T, cmd *exec.Cmd, ready func() bool) (time.Duration, int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); !ready(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("not ready to interrupt after 60 s; stderr %s", stderr.String())
		}
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("still running 20 s after SIGINT; stderr %s", stderr.String())
	}
	return time.Since(sent), cmd.ProcessState.ExitCode(), stderr.String()
}

// TestSampleSIGINTPhases: issue 21, item 7. SIGINT ends sample within 2
// seconds in every phase, with exit 130 and what was kept, even when the
// parent ignored SIGINT: while a big model loads, before the first trial
// (a run of 10^9 trials used to spin there for minutes, deaf to it); while
// trials run; and once every trial is finished, while the summary is
// computed (which took 27 s for two traces of 3 million steps, and used to
// carry on regardless).
func TestSampleSIGINTPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("a signal test: the full suite runs it")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	var b strings.Builder
	const n = 1000000 // a ring with chords: about 1.8 s to read
	fmt.Fprintf(&b, "%d\n", n)
	for i := range n {
		fmt.Fprintf(&b, "%d %d 1\n%d %d -1\n", i, (i+1)%n, i, (i+7)%n)
	}
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	finished := func(out string, trials int) func() bool {
		return func() bool {
			m, _ := filepath.Glob(filepath.Join(out, "*", "trial-*", "stats.json"))
			return len(m) == trials
		}
	}
	for _, tc := range []struct {
		name  string
		args  []string
		ready func(out string) func() bool
		want  string
	}{
		{"loading", []string{"--model", big, "--sampler", "gibbs", "--steps", "10", "--trials", "1"},
			func(string) func() bool { return (&sleeper{d: 300 * time.Millisecond}).done },
			"sardonics: interrupt before the first trial started; nothing was run\n"},
		{"trials", []string{"--model", "frustrated2d:L=24,seed=3", "--sampler", "sardonics,gibbs", "--steps", "2000000", "--trials", "2"},
			func(string) func() bool { return (&sleeper{d: time.Second}).done },
			"finished trials and checkpoints are in $OUT; continue with: sardonics sample --resume $OUT\n"},
		{"summary", []string{"--model", "ferro2d:L=3", "--sampler", "gibbs", "--steps", "3000000", "--burn", "10", "--trials", "1", "--no-figures"},
			func(out string) func() bool { return finished(out, 1) },
			"sardonics: interrupt while writing the summary: every trial is finished and kept in $OUT; write the summary with: sardonics sample --resume $OUT\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			args := append([]string{"sample", "--T", "1", "--quiet", "--out", out}, tc.args...)
			took, code, stderr := interruptWhen(t, ignoringChild(t, args...), tc.ready(out))
			if want := strings.ReplaceAll(tc.want, "$OUT", out); took > 2*time.Second || code != 130 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d %v after SIGINT; stderr %q\nwant it to say %q", code, took, stderr, want)
			}
		})
	}
}

// sleeper is ready once d has passed since it was first asked.
type sleeper struct {
	d     time.Duration
	start time.Time
}

func (s *sleeper) done() bool {
	if s.start.IsZero() {
		s.start = time.Now()
	}
	return time.Since(s.start) >= s.d
}

// TestExactSIGINT: SIGINT ends exact on a 30-variable model (minutes of
// enumeration) within 2 seconds with exit status 130 and a message saying
// that nothing was kept, even when SIGINT was ignored by the parent.
func TestExactSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("a signal test: the full suite runs it")
	}
	took, code, stderr := interrupt(t, ignoringChild(t, "exact", "--model", "chimera:M=3,N=5,T=1,seed=1", "--T", "1"), 500*time.Millisecond)
	if took > 2*time.Second || code != 130 || !strings.Contains(stderr, "nothing was kept") {
		t.Fatalf("exit %d %v after SIGINT; stderr %q", code, took, stderr)
	}
}

// TestTuneSIGINT: SIGINT stops tune between iterations within 2 seconds;
// the finished iterations are kept in tuning.csv, and no policy is written.
func TestTuneSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("a signal test: the full suite runs it")
	}
	out := t.TempDir()
	took, code, stderr := interrupt(t, ignoringChild(t, "tune", "--model", "frustrated2d:L=30,seed=1", "--T", "1",
		"--iterations", "2000", "--stop-ei", "-1", "--out", out), 2*time.Second)
	if took > 2*time.Second || code != 130 || !strings.Contains(stderr, "kept their settings and rewards") {
		t.Fatalf("exit %d %v after SIGINT; stderr %q", code, took, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "tuning.csv"))
	if err != nil || strings.Count(string(b), "\n") < 2 {
		t.Fatalf("tuning.csv: %v, %q", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "policy.json")); err == nil {
		t.Fatal("an interrupted tune wrote a policy")
	}
}

// TestPaperSIGINT: SIGINT stops a full-length paper experiment within 2
// seconds with exit 130 and the command that resumes it (that resuming
// gives the uninterrupted run's traces is paper.TestResumeIsIdentical).
func TestPaperSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("a signal test: the full suite runs it")
	}
	out := filepath.Join(t.TempDir(), "paper")
	took, code, stderr := interrupt(t, ignoringChild(t, "paper", "--out", out, "--experiment", "frustrated2d",
		"--trials", "2", "--quiet"), 1500*time.Millisecond)
	if took > 2*time.Second || code != 130 || !strings.Contains(stderr, "sardonics paper --resume "+out) {
		t.Fatalf("exit %d %v after SIGINT; stderr %q", code, took, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "paper.json")); err != nil {
		t.Fatal("the interrupted run left no paper.json to resume from")
	}
}

// TestBenchSIGINT: SIGINT stops bench within 2 seconds; the lines measured
// so far are kept in bench.json.
func TestBenchSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("a signal test: the full suite runs it")
	}
	out := t.TempDir()
	took, code, stderr := interrupt(t, ignoringChild(t, "bench", "--only", "saw", "--budget", "3s", "--out", out), 2500*time.Millisecond)
	if took > 2*time.Second || code != 130 || !strings.Contains(stderr, "lines measured so far") {
		t.Fatalf("exit %d %v after SIGINT; stderr %q", code, took, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "bench.json")); err != nil {
		t.Fatal("no bench.json kept")
	}
}
