package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sardonics/model"
	"sardonics/runner"
)

// Golden CLI tests, in the manner of the go command's script tests: each
// testdata/command_*.txt (and init_*.txt) is a script of sardonics command
// lines and checks on what they print and write, followed by files in
// txtar form ("-- NAME --" lines) that are written into the script's work
// folder $WORK before it runs. Script lines:
//
//	# comment
//	[!] sardonics ARGS...    run (as the sardonics binary would); ! expects a failure
//	status N                 the last command's exit status is N
//	[!] stdout|stderr RE     the last command's output matches (! does not match) RE
//	cmp stdout|stderr|FILE FILE  the two are equal byte for byte
//	[!] exists PATH          the path exists (! does not)
//	cp SRC DST, rm PATH      copy a file, remove a path
//
// Arguments are split at spaces; 'single quotes' keep spaces. $WORK in
// arguments is the work folder, and in outputs the work folder reads $WORK,
// so the expected output is independent of where the test runs.

// commandScript runs the scripts testdata/PREFIX*.txt, each as a subtest.
func commandScript(t *testing.T, prefix string) {
	files, err := filepath.Glob(filepath.Join("testdata", prefix+"*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/%s*.txt scripts (%v)", prefix, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			runCommandScript(t, f)
		})
	}
}

func runCommandScript(t *testing.T, file string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	// Commands record input files by canonical path: the folder's own,
	// so that outputs read $WORK where the temporary folder is a link.
	if w, err := filepath.EvalSymlinks(work); err == nil {
		work = w
	}
	script, files := splitScriptFiles(string(raw))
	for name, data := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr string
	status := 0
	path := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(work, p)
	}
	for n, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := file + ":" + strconv.Itoa(n+1)
		args := splitScriptLine(line)
		neg := args[0] == "!"
		if neg {
			args = args[1:]
		}
		if args[0] != "stdout" && args[0] != "stderr" { // outputs read $WORK already
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "$WORK", work)
			}
		}
		fail := func(format string, a ...any) {
			t.Fatalf("%s: %s\n%s\nstdout:\n%s\nstderr:\n%s", where, line, fmt.Sprintf(format, a...), stdout, stderr)
		}
		switch args[0] {
		case "sardonics":
			o, e, st, err := asMain(args[1:])
			stdout = strings.ReplaceAll(o, work, "$WORK")
			stderr = strings.ReplaceAll(e, work, "$WORK")
			status = st
			if neg != (err != nil) {
				fail("exit status %d (want %s)", status, map[bool]string{true: "a failure", false: "success"}[neg])
			}
		case "status":
			if want, _ := strconv.Atoi(args[1]); status != want {
				fail("exit status %d, want %d", status, want)
			}
		case "stdout", "stderr":
			out := stdout
			if args[0] == "stderr" {
				out = stderr
			}
			re, err := regexp.Compile("(?m)" + args[1])
			if err != nil {
				fail("%v", err)
			}
			if re.MatchString(out) == neg {
				fail("%s does not %smatch %q", args[0], map[bool]string{true: "not ", false: ""}[neg], args[1])
			}
		case "cmp":
			var got string
			switch args[1] {
			case "stdout":
				got = stdout
			case "stderr":
				got = stderr
			default:
				b, err := os.ReadFile(path(args[1]))
				if err != nil {
					fail("%v", err)
				}
				got = string(b)
			}
			want, err := os.ReadFile(path(args[2]))
			if err != nil {
				fail("%v", err)
			}
			if got != string(want) {
				fail("%s differs from %s:\n--- got\n%s--- want\n%s", args[1], args[2], got, want)
			}
		case "exists":
			_, err := os.Stat(path(args[1]))
			if (err == nil) == neg {
				fail("%s: exists = %v", args[1], err == nil)
			}
		case "cp":
			b, err := os.ReadFile(path(args[1]))
			if err == nil {
				err = os.WriteFile(path(args[2]), b, 0o644)
			}
			if err != nil {
				fail("%v", err)
			}
		case "rm":
			if err := os.RemoveAll(path(args[1])); err != nil {
				fail("%v", err)
			}
		default:
			fail("unknown script command %q", args[0])
		}
	}
}

// splitScriptFiles separates a script from its "-- NAME --" files.
func splitScriptFiles(s string) (string, map[string]string) {
	files := map[string]string{}
	lines := strings.SplitAfter(s, "\n")
	var script strings.Builder
	name := ""
	for _, l := range lines {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			name = strings.TrimSpace(t[3 : len(t)-3])
			files[name] = ""
			continue
		}
		if name == "" {
			script.WriteString(l)
		} else {
			files[name] += l
		}
	}
	return script.String(), files
}

// splitScriptLine splits at spaces, keeping 'quoted' spans together.
func splitScriptLine(line string) []string {
	var args []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			inQuote, have = !inQuote, true
		case r == ' ' && !inQuote:
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		args = append(args, cur.String())
	}
	return args
}

// TestCommandScripts: a failed run leaves no command.json and its fixed
// rerun works; equivalent commands are accepted and told which finished
// trials they reuse; another command is refused with a readable diff;
// report refuses to write into its own input.
func TestCommandScripts(t *testing.T) { commandScript(t, "command_") }

// TestResumeHint (issue 31): the command that continues a run names its
// folder absolute, so that it works from any directory (it printed --out
// as given: "sardonics sample --resume runA"), quoted where a shell needs
// it; every hint goes through it (sample's SIGINT and summary messages,
// another command into --out, paper's SIGINT message).
func TestResumeHint(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tc := range []struct{ cmd, dir, want string }{
		{"sample", "runA", "sardonics sample --resume " + filepath.Join(dir, "runA")},
		{"sample", "./a/../runB/", "sardonics sample --resume " + filepath.Join(dir, "runB")},
		{"paper", "/abs/run", "sardonics paper --resume /abs/run"},
		{"sample", "my run", "sardonics sample --resume '" + filepath.Join(dir, "my run") + "'"},
		{"sample", "it's", "sardonics sample --resume '" + filepath.Join(dir, "it") + `'\''s'`},
	} {
		if got := resumeHint(tc.cmd, tc.dir); got != tc.want {
			t.Errorf("resumeHint(%q, %q) = %q, want %q", tc.cmd, tc.dir, got, tc.want)
		}
	}
	// Another command into a relative --out: the hint is absolute.
	base := []string{"sample", "--model", "ferro2d:L=4", "--T", "2", "--sampler", "gibbs", "--trials", "1", "--steps", "50", "--burn", "10", "--quiet", "--out", "runA"}
	if _, _, err := run(t, base...); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, append(base, "--seed", "2")...)
	want := "continue that run with: sardonics sample --resume " + filepath.Join(dir, "runA")
	if err == nil || ExitCode(err) != 2 || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("another command into --out runA: %v (exit %d), want exit 2 and %q", err, ExitCode(err), want)
	}
}

// The normalized command makes --beta 2 and --T 0.5, and samplers in any
// order, the same; settings that do not change results are left out.
func TestNormalizeCommand(t *testing.T) {
	norm := func(args ...string) *commandFile {
		t.Helper()
		fs, err := parseSampleArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		set, inputs, err := normalizeCommand(fs)
		if err != nil {
			t.Fatal(err)
		}
		return &commandFile{Settings: set, Inputs: inputs}
	}
	a := norm("--model=ferro2d:L=4", "--T=0.5", "--sampler=gibbs,sardonics", "--quiet", "--threads=3")
	b := norm("--model=ferro2d:L=4", "--beta=2", "--sampler=sardonics,gibbs", "--checkpoint-every=1m")
	fs, _, _ := newFlagSet(commands["sample"], &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	if d, _ := diffCommands(a, b, fs); len(d) > 0 {
		t.Errorf("equivalent commands differ: %q", d)
	}
	if a.Settings["beta"] != "2" || a.Settings["sampler"] != "sardonics,gibbs" || a.Settings["steps"] != "100000" {
		t.Errorf("normalized: beta %q, sampler %q, steps %q", a.Settings["beta"], a.Settings["sampler"], a.Settings["steps"])
	}
	for _, k := range []string{"T", "quiet", "threads", "checkpoint-every", "out", "resume"} {
		if _, ok := a.Settings[k]; ok {
			t.Errorf("%s is compared", k)
		}
	}
	c := norm("--model=ferro2d:L=4", "--beta=2", "--steps=2000")
	// --sampler defaults to sardonics,gibbs: only steps differs.
	if d, _ := diffCommands(a, c, fs); len(d) != 1 || d[0] != "steps: 100000 (there) vs 2000 (now)" {
		t.Errorf("diff %q", d)
	}
}

// The --save-states estimate: (steps - burn) / --save-every rows of one
// byte per variable per trial and sampler in states.npy, and samples.npz at
// most as large, said before a run above statesWarnBytes.
func TestStatesNote(t *testing.T) {
	m, err := model.Load("ferro2d:L=100")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &runner.Config{Model: m, Samplers: []string{"sardonics", "gibbs"}, Steps: 100000, Burn: 20000, Trials: 10, SaveStates: true}
	total, per, held := statesSize(cfg)
	if held != 80000*10000 || per != held+128+80000*(1250+16)+4*128+512 || total != 20*per {
		t.Errorf("statesSize = %v, %v, %v", total, per, held)
	}
	want := "sardonics: --save-states will write about 18.0 GB (2 samplers x 10 trials x 901.3 MB: states.npy, and samples.npz of its distinct states, at most an eighth as large; each running trial holds its 800.0 MB of states in memory; --save-every K keeps one state in K)\n"
	if got := statesNote(cfg); got != want {
		t.Errorf("statesNote:\n%q\nwant\n%q", got, want)
	}
	cfg.SaveEvery = 100 // 800 rows: 8 MB per trial
	if _, _, held := statesSize(cfg); held != 800*10000 {
		t.Errorf("--save-every 100: %v bytes of states per trial", held)
	}
	cfg.SaveEvery = 1
	cfg.Steps, cfg.Burn = 20000, 19999 // 20 x 10 kB: nothing to say
	if got := statesNote(cfg); got != "" {
		t.Errorf("small run: %q", got)
	}
	cfg.Steps, cfg.Burn, cfg.SaveStates = 100000, 0, false
	if got := statesNote(cfg); got != "" {
		t.Errorf("without --save-states: %q", got)
	}
	for b, want := range map[float64]string{0: "0 B", 999: "999 B", 1500: "1.5 kB", 999999: "1.0 MB", 1.2e9: "1.2 GB", 3e12: "3.0 TB"} {
		if got := humanBytes(b); got != want {
			t.Errorf("humanBytes(%v) = %q, want %q", b, got, want)
		}
	}
}

// The message before a big --save-states run, end to end with the
// threshold lowered so that the run stays small.
func TestStatesNoteShown(t *testing.T) {
	old := statesWarnBytes
	statesWarnBytes = 1000
	defer func() { statesWarnBytes = old }()
	_, stderr, err := run(t, "sample", "--model", "ferro2d:L=4", "--T", "2", "--sampler", "gibbs", "--steps", "100", "--burn", "10",
		"--trials", "2", "--save-states", "--quiet", "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := "sardonics: --save-states will write about 8.4 kB (1 sampler x 2 trials x 4.2 kB: states.npy, and samples.npz of its distinct states, at most an eighth as large; each running trial holds its 1.4 kB of states in memory; --save-every K keeps one state in K)\n"
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to start with\n%s", stderr, want)
	}
}

// TestCommandCanonicalPaths: a model file is identified by its canonical
// path and its content, not by how it is spelled: m.txt, ./m.txt, the
// absolute path, a symbolic link to it and ../dir/m.txt from another
// directory are one command into one --out, and report merges trial
// folders written with relative and absolute paths (a batch array whose
// tasks cd differently); --policy and the policy's model likewise. A
// command.json of a version that recorded the paths as spelled is read
// with them made canonical.
func TestCommandCanonicalPaths(t *testing.T) {
	work := t.TempDir()
	if w, err := filepath.EvalSymlinks(work); err == nil {
		work = w
	}
	t.Chdir(work)
	if _, _, err := run(t, "gen", "--model", "frustrated2d:L=4,seed=2", "--out", "m.txt"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("m.txt", "link.txt"); err != nil {
		t.Fatal(err)
	}
	os.Mkdir("sub", 0o755)
	sample := func(modelArg, out string, extra ...string) (string, error) {
		t.Helper()
		args := append([]string{"sample", "--model", modelArg, "--T", "1", "--sampler", "gibbs", "--steps", "60", "--burn", "10",
			"--trials", "1", "--quiet", "--no-figures", "--out", out}, extra...)
		_, stderr, err := run(t, args...)
		return stderr, err
	}
	if _, err := sample("m.txt", "o"); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{"./m.txt", filepath.Join(work, "m.txt"), "link.txt", "sub/../m.txt"} {
		stderr, err := sample(spelling, "o")
		if err != nil || !strings.Contains(stderr, "reusing 1 finished trial") {
			t.Errorf("--model %s into the --out of --model m.txt: %v\n%s", spelling, err, stderr)
		}
	}
	// Trial 1 from another directory, by a relative path; then merged.
	t.Chdir(filepath.Join(work, "sub"))
	if _, err := sample("../m.txt", filepath.Join(work, "o2"), "--trial-offset", "1"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	if _, _, err := run(t, "report", "--no-figures", "--out", "merged", "o", filepath.Join(work, "o2")); err != nil {
		t.Fatalf("report of folders run with m.txt and ../m.txt: %v", err)
	}
	if s := readSummary(t, "merged"); s.Model.Spec != filepath.Join(work, "m.txt") || len(s.Results) != 1 || s.Results[0].Trials != 2 {
		t.Errorf("merged: model %q, %d results", s.Model.Spec, len(s.Results))
	}
	// Another file of the same name is another run: report refuses it.
	os.Mkdir("other", 0o755)
	if _, _, err := run(t, "gen", "--model", "frustrated2d:L=4,seed=3", "--out", "other/m.txt"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(work, "other"))
	if _, err := sample("m.txt", filepath.Join(work, "o3"), "--trial-offset", "2"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	if _, _, err := run(t, "report", "--no-figures", "--out", "merged2", "o", "o3"); ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), "model-file: sha256:") {
		t.Errorf("report of runs on two files named m.txt: %v (want exit 2 naming the model's content)", err)
	}

	// A policy tuned with one spelling is this model's with another, and
	// --policy is one setting however it is spelled.
	if _, _, err := run(t, "tune", "--model", "./m.txt", "--T", "1", "--iterations", "3", "--iter-steps", "10", "--kernels", "5", "--out", "tuned"); err != nil {
		t.Fatal(err)
	}
	if _, err := sample("m.txt", "p", "--sampler", "sardonics", "--policy", "tuned/policy.json"); err != nil {
		t.Fatalf("--policy tuned for ./m.txt, --model m.txt: %v", err)
	}
	if stderr, err := sample(filepath.Join(work, "m.txt"), "p", "--sampler", "sardonics", "--policy", filepath.Join(work, "tuned", "policy.json")); err != nil || !strings.Contains(stderr, "reusing") {
		t.Errorf("the same run with absolute paths: %v\n%s", err, stderr)
	}

	// A command.json that recorded the paths as given, relative to its
	// directory, still matches the command.
	path := filepath.Join("o", "command.json")
	c, err := readCommand(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Settings["model"] = "m.txt"
	c.Inputs["model"] = inputFile{Path: filepath.Join(work, "link.txt"), SHA256: c.Inputs["model"].SHA256}
	b, _ := json.Marshal(c)
	os.WriteFile(path, b, 0o644)
	if stderr, err := sample("./m.txt", "o"); err != nil || !strings.Contains(stderr, "reusing 1 finished trial") {
		t.Errorf("command.json with the model as spelled: %v\n%s", err, stderr)
	}
}
