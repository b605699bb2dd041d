package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// interruptedRun runs sample args in a child started in the directory
// work, with relative paths, and stops it with SIGTERM at its first
// checkpoint in work/o, as a batch system's SIGTERM would: the folder then
// holds checkpoints and a command.json to resume. The policy names the
// model as the command does, relative.
func interruptedRun(t *testing.T, work string) {
	t.Helper()
	if _, _, err := run(t, "gen", "--model", "frustrated2d:L=24,seed=3", "--out", filepath.Join(work, "m.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "p.json"), []byte(`{"spec": "m.txt", "kernels": ["kl=1,ku=8,gl=1,gh=1.05,pll=0.4,phl=0.3,plh=0.3,n=1"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work) // the child starts here
	stderr, err := termAtCheckpoint(t, "o", "sample", "--model", "m.txt", "--policy", "p.json", "--T", "1", "--sampler", "sardonics,gibbs",
		"--steps", "60000", "--burn", "1000", "--trials", "2", "--quiet", "--checkpoint-every", "50ms", "--out", "o")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) || !strings.Contains(stderr.String(), "--resume") {
		t.Fatalf("child: %v (want status 143); stderr %s", err, stderr)
	}
}

// TestResumeAfterEditRefused: issue 21, item 6. A model file edited after
// a run was interrupted makes --resume refuse (exit 2) naming the file,
// before any checkpoint is restored into a chain of the edited model
// (which failed with "chain state: sparse: state's energy ... is not its
// spins' energy ..."); restored, the run resumes and finishes.
func TestResumeAfterEditRefused(t *testing.T) {
	work := t.TempDir()
	interruptedRun(t, work)
	model := filepath.Join(work, "m.txt")
	saved, _ := os.ReadFile(model)
	if _, _, err := run(t, "gen", "--model", "frustrated2d:L=24,seed=4", "--out", model); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "sample", "--resume", "o", "--quiet")
	want := regexp.MustCompile(`^--resume o: --model ` + regexp.QuoteMeta(model) + ` changed since the run started \(sha256 [0-9a-f]{12} then, [0-9a-f]{12} now\); restore it to continue, or start a new run into another --out$`)
	if ExitCode(err) != 2 || !want.MatchString(err.Error()) {
		t.Fatalf("resume after an edit: exit %d, %v", ExitCode(err), err)
	}
	os.WriteFile(model, saved, 0o644)
	if _, _, err := run(t, "sample", "--resume", "o", "--quiet"); err != nil {
		t.Fatalf("resume with the file restored: %v", err)
	}
}

// TestResumeFromAnotherDirectory: issue 21, item 8. A run started with
// relative paths (--model, --policy, --out) resumes from any directory: the
// command runs again where it started (its checkpoints name the model as
// it was given), and the output goes to the folder given to --resume.
func TestResumeFromAnotherDirectory(t *testing.T) {
	work, elsewhere := t.TempDir(), t.TempDir()
	interruptedRun(t, work)
	t.Chdir(elsewhere)
	if _, _, err := run(t, "sample", "--resume", filepath.Join(work, "o"), "--quiet"); err != nil {
		t.Fatal(err)
	}
	if wd, _ := os.Getwd(); wd != elsewhere {
		t.Errorf("working directory %s after --resume (want %s)", wd, elsewhere)
	}
	for _, name := range []string{"sardonics", "gibbs"} {
		for _, tr := range []string{"trial-0", "trial-1"} {
			if e := readEnergies(t, filepath.Join(work, "o", name, tr, "energy.csv")); len(e) != 60000 {
				t.Errorf("%s %s: %d steps", name, tr, len(e))
			}
		}
	}
	if _, err := os.Stat(filepath.Join(work, "o", "summary.json")); err != nil {
		t.Error(err)
	}
}

// TestResumeMessages: issue 21, item 8. --resume of a folder that is not a
// sample run's says what it is and what was expected, never "(<nil>)".
func TestResumeMessages(t *testing.T) {
	dir := t.TempDir()
	folder := func(name, command string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(p, 0o755)
		if command != "" {
			os.WriteFile(filepath.Join(p, "command.json"), []byte(command), 0o644)
		}
		return p
	}
	gone := filepath.Join(dir, "gone")
	if _, _, err := run(t, "gen", "--model", "ferro2d:L=3", "--out", filepath.Join(dir, "m.txt")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, "moved")
	if _, _, err := run(t, "sample", "--model", filepath.Join(dir, "m.txt"), "--T", "1", "--sampler", "gibbs", "--steps", "100",
		"--trials", "1", "--quiet", "--out", moved); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "m.txt"))
	for _, tc := range []struct{ dir, want string }{
		{folder("foreign", ""), "--resume $D/foreign: the folder has no command.json, so it is not the output of sardonics sample (expected the --out folder of an interrupted sample run)"},
		{folder("empty", "{}"), `--resume $D/empty: $D/empty/command.json: not a command.json written by sardonics sample (it has no "settings"); expected the --out folder of an interrupted sample run`},
		{folder("text", "hello"), "--resume $D/text: $D/text/command.json: not a command.json written by sardonics sample (invalid character 'h' looking for beginning of value); expected the --out folder of an interrupted sample run"},
		{gone, "--resume $D/gone: no such folder (expected the --out folder of an interrupted sample run)"},
		{moved, "--resume $D/moved: --model $D/m.txt, which the run read: cannot read: no such file or directory; restore it to continue"},
	} {
		_, _, err := run(t, "sample", "--resume", tc.dir)
		if want := strings.ReplaceAll(tc.want, "$D", dir); ExitCode(err) != 2 || err.Error() != want {
			t.Errorf("--resume %s: exit %d, %v\nwant %s", tc.dir, ExitCode(err), err, want)
		}
	}
}
