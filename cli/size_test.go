package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAbsurdSizesRefused: issue 21, item 7. --steps 1e12 (an out-of-memory
// crash with a 181-line stack trace) and --trials 1e9 (ten minutes of full
// CPU before the first output) are refused by the real program in under a
// second with exit 2, the estimate and the limit, no stack trace, and no
// folder created.
func TestAbsurdSizesRefused(t *testing.T) {
	// Kept draws do not grow with --steps; every step written does.
	for _, flag := range [][]string{{"--steps", "1000000000000", "--save-trace"}, {"--trials", "1000000000"}} {
		out := filepath.Join(t.TempDir(), "o")
		cmd := child(t, append([]string{"sample", "--model", "ferro2d:L=4", "--T", "1", "--out", out}, flag...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		cmd.Run()
		took, msg := time.Since(start), stderr.String()
		if code := cmd.ProcessState.ExitCode(); code != 2 || took > time.Second {
			t.Errorf("%v: exit %d after %v (want 2 within a second); stderr %s", flag, code, took, msg)
		}
		if !strings.HasPrefix(msg, "sardonics: this run needs about ") && !strings.HasPrefix(msg, "sardonics: this run writes about ") ||
			!strings.Contains(msg, "B available (MemAvailable") && !strings.Contains(msg, "--save-trace") ||
			strings.Contains(msg, "goroutine") || strings.Contains(msg, "fatal error") {
			t.Errorf("%v: stderr %s", flag, msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the refused run created %s", flag, out)
		}
	}
}

// The messages of checkSize, for fixed limits: the estimate, its parts,
// the limit and where it comes from, and what to change.
func TestSizeMessages(t *testing.T) {
	oldMem, oldDisk := availableMemory, diskRoom
	defer func() { availableMemory, diskRoom = oldMem, oldDisk }()
	availableMemory = func() (float64, string) { return 8e9, "MemAvailable in /proc/meminfo" }
	diskRoom = func(string) (float64, float64, bool) { return 50e9, 1e6, true }
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--steps", "1000000000", "--save-trace"}, `sardonics: this run writes about 240.1 GB into $D (the --save-trace traces (12.0 GB a trial) of 2 samplers x 10 trials x 1000000000 steps, and checkpoints), more than the 50.0 GB free there; give fewer --steps or --trials, or no --save-trace, or an --out with more room
`},
		{[]string{"--model", "ferro2d:L=300", "--steps", "2000000", "--trials", "1", "--save-states", "--replicas", "8"}, `sardonics: this run needs about 416.0 GB of memory, more than the 8.0 GB available (MemAvailable in /proc/meminfo):
  5.8 MB for the traces: 2 samplers x 1 trial x 85536 kept draws x 20 B and 16384 rounds of every rung x 72 B, kept until the summary
  416.0 GB for the 1 trial running at once: chains, kept states (--save-states), checkpoints
give fewer --steps, --threads or --replicas, or save fewer states (a larger --save-every or --burn, or no --save-states)
`},
		{[]string{"--model", "ferro2d:L=100", "--trials", "100", "--threads", "1", "--save-states"}, `sardonics: this run writes about 183.1 GB into $D (the traces and kept states of 2 samplers x 100 trials x 100000 steps, and checkpoints), more than the 50.0 GB free there; give fewer --steps or --trials, save fewer states (a larger --save-every or --burn, or no --save-states), or an --out with more room
`},
		{[]string{"--steps", "100", "--trials", "200000", "--threads", "1"}, `sardonics: this run writes about 1600014 files and folders into $D (4 to 10 per trial of 2 samplers x 200000 trials), more than the 1000000 the file system there has free (inodes); give fewer --trials, or an --out on another file system
`},
	} {
		args := append([]string{"sample", "--model", "ferro2d:L=4", "--T", "1", "--out", dir}, tc.args...)
		_, stderr, err := run(t, args...)
		if err != nil {
			stderr += "sardonics: " + err.Error() + "\n"
		}
		if want := strings.ReplaceAll(tc.want, "$D", dir); ExitCode(err) != 2 || stderr != want {
			t.Errorf("%v: exit %d, stderr\n%s\nwant\n%s", tc.args, ExitCode(err), stderr, want)
		}
	}
}
