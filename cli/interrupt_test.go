package cli

import (
	"bytes"
	"encoding/json"
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
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
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

// TestExactSIGINT: SIGINT ends exact on a 30-variable model (minutes of
// enumeration) within 2 seconds with exit status 130 and a message saying
// that nothing was kept, even when SIGINT was ignored by the parent.
func TestExactSIGINT(t *testing.T) {
	took, code, stderr := interrupt(t, ignoringChild(t, "exact", "--model", "chimera:M=3,N=5,T=1,seed=1", "--T", "1"), 500*time.Millisecond)
	if took > 2*time.Second || code != 130 || !strings.Contains(stderr, "nothing was kept") {
		t.Fatalf("exit %d %v after SIGINT; stderr %q", code, took, stderr)
	}
}

// TestTuneSIGINT: SIGINT stops tune between iterations within 2 seconds;
// the finished iterations are kept in tuning.csv, and no policy is written.
func TestTuneSIGINT(t *testing.T) {
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
	out := t.TempDir()
	took, code, stderr := interrupt(t, ignoringChild(t, "bench", "--only", "saw", "--budget", "3s", "--out", out), 2500*time.Millisecond)
	if took > 2*time.Second || code != 130 || !strings.Contains(stderr, "lines measured so far") {
		t.Fatalf("exit %d %v after SIGINT; stderr %q", code, took, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "bench.json")); err != nil {
		t.Fatal("no bench.json kept")
	}
}
