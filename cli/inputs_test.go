package cli

import (
	"archive/zip"
	"bytes"
	"fmt"
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
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
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
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
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

// TestGenConverts: gen writes a model to every format that can hold it
// (a .qubo to .npz as its matrix Q, and back to the same .qubo terms) and
// refuses, with exit 2, the file named and the formats that can, every
// one that cannot: fields to .npy, an offset to .txt, an unknown
// extension; a missing folder or a folder as --out is refused before the
// model is built.
func TestGenConverts(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "q.qubo")
	os.WriteFile(q, []byte("p qubo 0 3 3 2\n0 0 1\n1 1 -2\n2 2 0.5\n0 1 3\n1 2 -1\n"), 0o644)
	exactOf := func(spec string) string {
		t.Helper()
		out, _, err := run(t, "exact", "--model", spec, "--beta", "0.7")
		if err != nil {
			t.Fatalf("exact --model %s: %v", spec, err)
		}
		_, rest, _ := strings.Cut(out, "\n") // the first line names the spec
		return rest
	}
	for _, tc := range []struct{ from, to string }{
		{q, "q.npz"}, {filepath.Join(dir, "q.npz"), "q2.qubo"}, {"sk:N=5,seed=2", "sk.npy"}, {filepath.Join(dir, "sk.npy"), "sk.txt"},
		{"frustrated2d:L=3", "f.npz"}, {"rbm-random:V=3,H=2", "r.npz"},
	} {
		out := filepath.Join(dir, tc.to)
		if _, _, err := run(t, "gen", "--model", tc.from, "--out", out); err != nil {
			t.Errorf("gen %s to %s: %v", tc.from, tc.to, err)
			continue
		}
		if a, b := exactOf(tc.from), exactOf(out); a != b {
			t.Errorf("gen %s to %s changed the model:\n%s\n%s", tc.from, tc.to, a, b)
		}
	}
	if a, _ := os.ReadFile(filepath.Join(dir, "q2.qubo")); !strings.HasSuffix(string(a), "p qubo 0 3 3 2\n0 0 1\n1 1 -2\n2 2 0.5\n0 1 3\n1 2 -1\n") {
		t.Errorf(".qubo through .npz:\n%s", a)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "ferro2d:L=3", "--out", filepath.Join(dir, "x.csv")}, dir + `/x.csv: unknown extension ".csv" (expected .txt, .qubo, .npz or .npy)`},
		{[]string{"--model", "frustrated2d:L=3", "--out", filepath.Join(dir, "f.npy")}, dir + "/f.npy: model frustrated2d:L=3 has fields, which a .npy file (J alone) cannot hold (write .txt, .qubo or .npz instead)"},
		{[]string{"--model", q, "--out", filepath.Join(dir, "q.txt")}, dir + "/q.txt: model " + q + " has energy offset 0.25, which the .txt format cannot hold (write .qubo or .npz instead)"},
		{[]string{"--model", "ferro2d:L=100", "--out", filepath.Join(dir, "big.npz")}, "has 10000 variables, more than the 8192 of a dense matrix file (write .txt or .qubo instead)"},
		{[]string{"--model", "ferro2d:L=3", "--out", filepath.Join(dir, "no", "x.txt")}, "--out " + dir + "/no/x.txt: the folder " + dir + "/no does not exist (expected a file in an existing folder)"},
		{[]string{"--model", "ferro2d:L=3", "--out", dir}, "--out " + dir + " is a directory (expected a file name"},
	} {
		_, _, err := run(t, append([]string{"gen"}, tc.args...)...)
		if ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("gen %v: exit %d, %v\nwant exit 2 and %q", tc.args, ExitCode(err), err, tc.want)
		}
	}
}

// TestInputMessages: input errors exit 2 and say what the input is and
// what was expected: an --out that is a file, a folder as --model, .npz
// archives of no known layout (all three named), an untempered sampler
// inside replica exchange (every tempered one named, blockgibbs too), a
// --beta beyond float64.
func TestInputMessages(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	none := filepath.Join(dir, "none.npz")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("X.npy")
	w.Write([]byte("abc"))
	zw.Close()
	os.WriteFile(none, buf.Bytes(), 0o644)
	trunc := filepath.Join(dir, "trunc.npz")
	os.WriteFile(trunc, buf.Bytes()[:20], 0o644)
	layouts := "W.npy (V x H), b.npy (V) and c.npy (H) for an RBM, J.npy (N x N) and optionally h.npy (N) for an Ising model, or Q.npy (N x N) for a QUBO"
	m := []string{"--model", "ferro2d:L=3", "--beta", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"sample", "--out", file}, m...), "--out " + file + " is an existing file (expected a directory: the folder for the outputs, created if missing)"},
		{append([]string{"sample", "--out", filepath.Join(file, "o")}, m...), "--out " + file + "/o: " + file + " is an existing file (expected a directory"},
		{append([]string{"tune", "--out", file}, m...), "--out " + file + " is an existing file"},
		{[]string{"report", "--out", file, dir}, "report: --out " + file + " is an existing file"},
		{[]string{"sample", "--model", dir, "--beta", "1", "--out", filepath.Join(dir, "o")}, "--model: " + dir + " is a directory (expected a model file, PATH.txt, PATH.qubo, PATH.npz or PATH.npy, or a generator"},
		{[]string{"exact", "--model", dir, "--beta", "1"}, "--model: " + dir + " is a directory"},
		{[]string{"exact", "--model", none, "--beta", "1"}, none + ": missing array W: the archive holds X.npy (expected " + layouts + ")"},
		{[]string{"exact", "--model", trunc, "--beta", "1"}, "not an .npz archive: zip: not a valid zip file (expected a zip of .npy arrays: W, b, c for an RBM; J and optionally h for an Ising model; or Q for a QUBO)"},
		{append([]string{"sample", "--sampler", "sw", "--replicas", "4", "--out", filepath.Join(dir, "o")}, m...),
			"--replicas: sw cannot change its temperature in place (its bond probabilities are built for one beta); use sardonics, hybrid, gibbs or metropolis (blockgibbs also runs inside replica exchange, but not on this model: blockgibbs needs a bipartite model (an RBM); ferro2d:L=3 is not one)"},
		{[]string{"sample", "--model", "rbm-random:V=3,H=2", "--beta", "1", "--sampler", "sw", "--replicas", "4", "--out", filepath.Join(dir, "o")}, "; use sardonics, hybrid, gibbs, metropolis or blockgibbs"},
		{[]string{"sample", "--model", "ferro2d:L=3", "--beta", "1e400", "--out", filepath.Join(dir, "o")}, `invalid value "1e400" for flag -beta: out of range (expected a finite number)`},
		{[]string{"sample", "--model", "ferro2d:L=3", "--T", "-1e999", "--out", filepath.Join(dir, "o")}, `invalid value "-1e999" for flag -T: out of range (expected a finite number)`},
	} {
		_, _, err := run(t, tc.args...)
		if ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("%v: exit %d, %v\nwant exit 2 and %q", tc.args, ExitCode(err), err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o")); err == nil {
		t.Errorf("a refused run created its --out")
	}
}
