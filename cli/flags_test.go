package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sardonics/exact"
	"sardonics/model"
	"sardonics/summary"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts cli/testdata/flags_*.golden")

// transcript runs sardonics with args as main does (an error is printed as
// "sardonics: ERR" on stderr) and returns what a terminal shows: the
// command, its exit status, then stdout and stderr. Only the first
// outLines lines of stdout and errLines of stderr are kept (-1: all); "..."
// marks a cut. Every occurrence of tmp reads $TMP.
func transcript(tmp string, outLines, errLines int, args ...string) string {
	args = append([]string(nil), args...)
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$TMP", tmp)
	}
	out, errs, status, _ := asMain(args)
	var b strings.Builder
	fmt.Fprintf(&b, "$ sardonics %s\nexit %d\n", strings.Join(args, " "), status)
	section := func(name, s string, n int) {
		if s == "" {
			return
		}
		fmt.Fprintf(&b, "-- %s --\n", name)
		lines := strings.SplitAfter(s, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if n >= 0 && len(lines) > n {
			lines = append(lines[:n], "...\n")
		}
		b.WriteString(strings.Join(lines, ""))
	}
	section("stdout", out, outLines)
	section("stderr", errs, errLines)
	return strings.ReplaceAll(b.String(), tmp, "$TMP")
}

// checkGolden compares got with cli/testdata/flags_NAME.golden; go test
// ./cli -run TestFlagsGolden -update rewrites the files.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	checkGoldenFile(t, filepath.Join("testdata", "flags_"+name+".golden"), "TestFlagsGolden", got)
}

// TestFlagsGolden: the messages of misleading or invalid flags, and the
// first output line of runs whose defaults adapt, are the contract (issue
// 15, points 4, 9 and 10). Every input error exits 2 with one message and
// no usage dump; -h prints the usage on stdout and exits 0.
func TestFlagsGolden(t *testing.T) {
	const m = "--model=ferro2d:L=4"
	policy := func(dir, spec string) string {
		p := filepath.Join(dir, "policy.json")
		os.WriteFile(p, []byte(`{"spec": "`+spec+`", "beta": 1, "kernels": ["kl=1,ku=4,gl=1,gh=1,pll=1,phl=1,plh=1,n=1"]}`+"\n"), 0o644)
		return p
	}
	cases := []struct {
		name     string
		outLines int // stdout lines kept; a case that runs keeps no stderr (its warnings are not the contract)
		setup    func(dir string)
		args     []string
	}{
		// Point 4: an unknown or malformed flag: the error and where to look.
		{name: "unknown_flag", args: []string{"sample", "-x"}},
		{name: "unknown_flag_report", args: []string{"report", "--bogus", "$TMP"}},
		// Issue 31: an unknown flag near one of the command's gets a "did you mean".
		{name: "unknown_flag_near", args: []string{"sample", m, "--T", "1", "--step", "10", "--out", "$TMP/o"}},
		{name: "bad_value", args: []string{"sample", "--steps", "many"}},
		// -h and help: usage on stdout (its first line here), exit 0.
		{name: "help_flag", outLines: 1, args: []string{"sample", "-h"}},
		{name: "help_command", outLines: 1, args: []string{"help", "report"}},
		// Temperatures: the valid range; beta = 0 is the uniform distribution.
		{name: "T_zero", args: []string{"sample", m, "--T", "0", "--out", "$TMP/o"}},
		{name: "T_negative", args: []string{"sample", m, "--T=-1", "--out", "$TMP/o"}},
		{name: "beta_negative", args: []string{"sample", m, "--beta=-0.5", "--out", "$TMP/o"}},
		{name: "beta_inf", args: []string{"sample", m, "--beta", "+Inf", "--out", "$TMP/o"}},
		{name: "T_and_beta", args: []string{"sample", m, "--T", "2", "--beta", "0.5", "--out", "$TMP/o"}},
		{name: "no_temperature", args: []string{"sample", m, "--out", "$TMP/o"}},
		{name: "exact_beta_zero", outLines: 2, args: []string{"exact", "--model", "ferro2d:L=3", "--beta", "0"}},
		{name: "exact_T_zero", args: []string{"exact", "--model", "ferro2d:L=3", "--T", "0"}},
		{name: "metropolis_beta_zero", args: []string{"sample", m, "--beta", "0", "--sampler", "gibbs,metropolis", "--out", "$TMP/o"}},
		// Burn-in: an explicit one that keeps nothing names both values and
		// the fix; the default adapts to --steps and says so.
		{name: "burn_not_below_steps", args: []string{"sample", m, "--T", "1", "--steps", "1000", "--burn", "20000", "--out", "$TMP/o"}},
		{name: "burn_negative", args: []string{"sample", m, "--T", "1", "--steps", "1000", "--burn=-1", "--out", "$TMP/o"}},
		{name: "burn_default_short_run", outLines: 1, args: []string{"sample", m, "--T", "1", "--steps", "10", "--trials", "1", "--sampler", "gibbs", "--quiet", "--no-figures", "--out", "$TMP/o"}},
		// --tune: the tuning steps are never in the statistics.
		{name: "tune_burn_short", args: []string{"sample", m, "--T", "1", "--sampler", "sardonics", "--tune", "--steps", "30000", "--burn", "100", "--out", "$TMP/o"}},
		{name: "tune_no_room", args: []string{"sample", m, "--T", "1", "--sampler", "sardonics", "--tune", "--steps", "1000", "--out", "$TMP/o"}},
		{name: "tune_burn_default", outLines: 1, args: []string{"sample", m, "--T", "1", "--sampler", "sardonics", "--tune", "--iterations", "3", "--iter-steps", "10", "--kernels", "5",
			"--steps", "100", "--trials", "2", "--threads", "1", "--quiet", "--no-figures", "--out", "$TMP/o"}},
		// Counts that were silently accepted.
		{name: "threads_negative", args: []string{"sample", m, "--T", "1", "--threads=-2", "--out", "$TMP/o"}},
		{name: "checkpoint_every_negative", args: []string{"sample", m, "--T", "1", "--checkpoint-every=-5m", "--out", "$TMP/o"}},
		{name: "trial_offset_negative", args: []string{"sample", m, "--T", "1", "--trial-offset=-1", "--out", "$TMP/o"}},
		{name: "engine_threads_sparse", args: []string{"sample", m, "--T", "1", "--engine-threads", "2", "--out", "$TMP/o"}},
		{name: "engine_threads_dense", args: []string{"sample", "--model", "rbm-random:V=6,H=4", "--T", "1", "--engine", "dense", "--engine-threads", "2", "--out", "$TMP/o"}},
		{name: "tune_trial_negative", args: []string{"tune", m, "--T", "1", "--trial=-1", "--out", "$TMP/o"}},
		// A policy tuned for another model.
		{name: "policy_other_model", setup: func(dir string) { policy(dir, "ferro2d:L=8") },
			args: []string{"sample", m, "--T", "1", "--sampler", "sardonics", "--policy", "$TMP/policy.json", "--out", "$TMP/o"}},
		// Point 9: two profiles into one file.
		{name: "profiles_one_file", args: []string{"exact", "--model", "ferro2d:L=3", "--T", "1", "--cpuprofile", "$TMP/p", "--memprofile", "$TMP/p"}},
		{name: "profile_bad_path", args: []string{"exact", "--model", "ferro2d:L=3", "--T", "1", "--memprofile", "$TMP/no/such/dir/mem.pprof"}},
		// Issue 23, item 6: an invalid mixture of move types; the hybrid cycle.
		{name: "params_mixture", args: []string{"sample", m, "--T", "1", "--params", "pll=0.5,phl=0.3,plh=0.3", "--out", "$TMP/o"}},
		{name: "mix_without_hybrid", args: []string{"sample", m, "--T", "1", "--sampler", "sardonics", "--mix", "1:5", "--out", "$TMP/o"}},
		{name: "mix_bad", args: []string{"sample", m, "--T", "1", "--sampler", "hybrid", "--mix", "0:0", "--out", "$TMP/o"}},
		// --save-every (issue 23, item 3): a thinning of no saved states.
		{name: "save_every_zero", args: []string{"sample", m, "--T", "1", "--save-states", "--save-every", "0", "--out", "$TMP/o"}},
		{name: "save_every_without_states", args: []string{"sample", m, "--T", "1", "--save-every", "10", "--out", "$TMP/o"}},
		{name: "save_every_too_large", args: []string{"sample", m, "--T", "1", "--steps", "1000", "--burn", "900", "--save-states", "--save-every", "101", "--out", "$TMP/o"}},
		// --budget (issue 23, item 2): equal thread CPU instead of equal
		// steps; what it excludes, and the first line of a budget run.
		{name: "budget_and_steps", args: []string{"sample", m, "--T", "1", "--budget", "10s", "--steps", "1000", "--out", "$TMP/o"}},
		{name: "budget_bad", args: []string{"sample", m, "--T", "1", "--budget", "ten", "--out", "$TMP/o"}},
		{name: "budget_no_unit", args: []string{"sample", m, "--T", "1", "--budget", "60", "--out", "$TMP/o"}},
		{name: "budget_zero", args: []string{"sample", m, "--T", "1", "--budget", "0s", "--out", "$TMP/o"}},
		{name: "budget_negative", args: []string{"sample", m, "--T", "1", "--budget=-5m", "--out", "$TMP/o"}},
		{name: "budget_with_burn", args: []string{"sample", m, "--T", "1", "--budget", "10s", "--burn", "100", "--out", "$TMP/o"}},
		{name: "budget_too_small", args: []string{"sample", m, "--T", "1", "--budget", "5ms", "--trials", "10", "--out", "$TMP/o"}},
		{name: "budget_tune", args: []string{"sample", m, "--T", "1", "--sampler", "sardonics", "--tune", "--budget", "10s", "--out", "$TMP/o"}},
		{name: "budget_marginals", args: []string{"sample", m, "--T", "1", "--budget", "10s", "--marginals", "--out", "$TMP/o"}},
		{name: "burn_fraction_range", args: []string{"sample", m, "--T", "1", "--budget", "10s", "--burn-fraction", "1", "--out", "$TMP/o"}},
		{name: "budget_adaptive_no_burn", args: []string{"sample", m, "--T", "1", "--sampler", "metropolis", "--replicas", "4", "--ladder", "adaptive", "--budget", "10s", "--burn-fraction", "0", "--out", "$TMP/o"}},
		{name: "burn_fraction_without_budget", args: []string{"sample", m, "--T", "1", "--burn-fraction", "0.3", "--out", "$TMP/o"}},
		{name: "budget_first_line", outLines: 1, args: []string{"sample", m, "--T", "1", "--sampler", "gibbs", "--budget", "40ms", "--trials", "2", "--quiet", "--no-figures", "--out", "$TMP/o"}},
		// report: flags after the folders are flags, not folders.
		{name: "report_flag_after_dir", args: []string{"report", "$TMP", "--out"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(dir)
			}
			errLines := -1
			if c.outLines != 0 {
				errLines = 0
			}
			checkGolden(t, c.name, transcript(dir, c.outLines, errLines, c.args...))
		})
	}
}

// TestHelpObservablesGolden: what sample -h says of the observables and
// the saved states (issue 23, items 1 and 3): those paragraphs of its
// description and the entries of their flags.
func TestHelpObservablesGolden(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run([]string{"sample", "-h"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var keep []string
	lines := strings.Split(out.String(), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Observables:") || strings.HasPrefix(l, "Saved states:"):
			for ; i < len(lines) && lines[i] != ""; i++ {
				keep = append(keep, lines[i])
			}
			keep = append(keep, "")
		case strings.HasPrefix(l, "  -save-") || strings.HasPrefix(l, "  -marginals"):
			keep = append(keep, l, lines[i+1])
			i++
		}
	}
	checkGolden(t, "help_observables", strings.Join(keep, "\n")+"\n")
}

// TestHelpBudgetGolden: what sample -h says of --budget (issue 23, item
// 2): its paragraph of the description and the entries of its flags.
func TestHelpBudgetGolden(t *testing.T) {
	var out, errb bytes.Buffer
	if err := Run([]string{"sample", "-h"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var keep []string
	lines := strings.Split(out.String(), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Budget:"):
			for ; i < len(lines) && lines[i] != ""; i++ {
				keep = append(keep, lines[i])
			}
			keep = append(keep, "")
		case strings.HasPrefix(l, "  -budget") || strings.HasPrefix(l, "  -burn-fraction") || strings.HasPrefix(l, "  -steps"):
			keep = append(keep, l, lines[i+1])
			i++
		}
	}
	checkGolden(t, "help_budget", strings.Join(keep, "\n")+"\n")
}

// TestBetaZero: --beta 0 is the uniform distribution; every sampler that
// accepts it agrees with exact enumeration at beta 0 (mean energy 0 for a
// model without fields).
func TestBetaZero(t *testing.T) {
	for _, tc := range []struct{ spec, samplers string }{
		{"ferro2d:L=4", "sardonics,gibbs,sw"},
		{"rbm-random:V=8,H=6,seed=1", "sardonics,gibbs,blockgibbs"},
	} {
		m, err := model.Load(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := exact.Enumerate(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, stderr, err := run(t, "sample", "--model", tc.spec, "--beta", "0", "--sampler", tc.samplers, "--steps", "4000",
			"--trials", "2", "--quiet", "--no-figures", "--out", dir); err != nil {
			t.Fatalf("%s: %v\n%s", tc.spec, err, stderr)
		}
		s := readSummary(t, dir)
		if s.Beta != 0 || math.Signbit(s.Beta) {
			t.Errorf("%s: summary beta %v, want 0", tc.spec, s.Beta)
		}
		for _, r := range s.Results {
			if d := math.Abs(r.EnergyMean - ex.EnergyMean); !(d <= 5*r.EnergyStderr) {
				t.Errorf("%s %s at beta 0: mean energy %.4f +- %.4f, exact %.4f", tc.spec, r.Sampler, r.EnergyMean, r.EnergyStderr, ex.EnergyMean)
			}
		}
	}
	// --beta -0 is 0, not a negative zero in the outputs.
	out, _, err := run(t, "exact", "--model", "ferro2d:L=3", "--beta=-0")
	if err != nil || !strings.Contains(out, "beta        0\n") {
		t.Errorf("exact --beta -0: %v\n%s", err, out)
	}
}

// TestReportFlagsAfterDirs: report DIR... --out MERGED parses --out (it was
// taken for a folder).
func TestReportFlagsAfterDirs(t *testing.T) {
	dir := t.TempDir()
	a, merged := filepath.Join(dir, "a"), filepath.Join(dir, "merged")
	if _, _, err := run(t, "sample", "--model", "ferro2d:L=4", "--T", "2", "--sampler", "gibbs", "--steps", "200",
		"--trials", "1", "--quiet", "--no-figures", "--out", a); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := run(t, "report", a, "--out", merged, "--no-figures"); err != nil {
		t.Fatalf("report DIR --out MERGED: %v\n%s", err, stderr)
	}
	if s := readSummary(t, merged); len(s.Results) != 1 || s.Results[0].Sampler != "gibbs" {
		t.Fatalf("merged summary: %+v", s.Results)
	}
	// "--" still ends the flags: what follows is a folder.
	if _, _, err := run(t, "report", "--out", merged, "--", "--no-figures"); err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), "--no-figures is not a sample output folder") {
		t.Errorf("report --out M -- --no-figures: %v", err)
	}
}

// TestProfilesTogether: --cpuprofile, --memprofile and --trace are all
// written when given together (pkg/profile kept only one).
func TestProfilesTogether(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof"), filepath.Join(dir, "trace.out")
	if _, _, err := run(t, "sample", "--model", "ferro2d:L=16", "--T", "2.27", "--sampler", "gibbs", "--steps", "2000",
		"--trials", "1", "--quiet", "--no-figures", "--out", filepath.Join(dir, "o"),
		"--cpuprofile", cpu, "--memprofile", mem, "--trace", tr); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cpu, mem, tr} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v, %d bytes", p, err, len(b))
		}
		if p != tr && !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a gzipped pprof profile", p)
		}
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", mem).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "flat") {
		t.Fatalf("go tool pprof -top %s: %v\n%s", mem, err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestNoFigures: --no-figures writes the data (tuning.csv included) and no
// .png; report --no-figures likewise.
func TestNoFigures(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if _, _, err := run(t, "sample", "--model", "ferro2d:L=4", "--T", "1", "--sampler", "sardonics", "--tune", "--iterations", "3",
		"--iter-steps", "10", "--kernels", "5", "--steps", "100", "--trials", "1", "--quiet", "--no-figures", "--out", a); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{a, filepath.Join(dir, "m")} {
		if d != a {
			if _, _, err := run(t, "report", "--no-figures", "--out", d, a); err != nil {
				t.Fatal(err)
			}
		}
		if png, _ := filepath.Glob(filepath.Join(d, "*.png")); len(png) > 0 {
			t.Errorf("--no-figures drew %v", png)
		}
		for _, f := range []string{"summary.json", "tuning.csv"} {
			if _, err := os.Stat(filepath.Join(d, f)); err != nil {
				t.Errorf("--no-figures: %v", err)
			}
		}
	}
}

// TestPolicyModel: a policy tuned for this model, and an old policy file
// that names no model, are accepted (the refusal of another model's policy
// is in TestFlagsGolden).
func TestPolicyModel(t *testing.T) {
	dir := t.TempDir()
	for i, js := range []string{
		`{"spec": "ferro2d:L=4", "beta": 1, "kernels": ["kl=1,ku=4,gl=1,gh=1,pll=1,phl=1,plh=1,n=1"]}`,
		`{"kernels": ["kl=1,ku=4,gl=1,gh=1,pll=1,phl=1,plh=1,n=1"]}`,
	} {
		p := filepath.Join(dir, fmt.Sprintf("policy%d.json", i))
		os.WriteFile(p, []byte(js), 0o644)
		if _, _, err := run(t, "sample", "--model", "ferro2d:L=4", "--T", "1", "--sampler", "sardonics", "--policy", p,
			"--steps", "50", "--trials", "1", "--quiet", "--no-figures", "--out", filepath.Join(dir, fmt.Sprint(i))); err != nil {
			t.Errorf("%s: %v", js, err)
		}
	}
}

// TestShortTrialCPUTime: a trial of a few microseconds has a measured CPU
// time (not 0) in summary.json, stats.json and the table, and the values
// that follow from it are estimated.
func TestShortTrialCPUTime(t *testing.T) {
	dir := t.TempDir()
	out, _, err := run(t, "sample", "--model", "ferro2d:L=4", "--T", "1", "--steps", "10", "--burn", "0", "--trials", "1",
		"--sampler", "gibbs", "--quiet", "--no-figures", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	r := readSummary(t, dir).Results[0]
	if !(r.CPUSeconds > 0) || r.NsPerFlip == nil || !(*r.NsPerFlip > 0) {
		t.Errorf("cpu_seconds %v, ns_per_flip %v: want measured values", r.CPUSeconds, r.NsPerFlip)
	}
	b, err := os.ReadFile(filepath.Join(summary.TrialDir(dir, "gibbs", 0), "stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		CPU float64 `json:"cpu_seconds"`
	}
	if json.Unmarshal(b, &st) != nil || !(st.CPU > 0) {
		t.Errorf("stats.json cpu_seconds %v", st.CPU)
	}
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "gibbs ") && row == "" { // the first table's row
			row = l
		}
	}
	f := strings.Fields(row)
	if len(f) < 8 || f[7] == "0" || f[7] == "0.00" {
		t.Errorf("table row %q: cpu s column should show the measured time", row)
	}
}

// TestUnknownFlagSuggests (issue 31): every subcommand answers an unknown
// flag with its nearest flags (edit distance, then a shared prefix), and
// with none where nothing is near.
func TestUnknownFlagSuggests(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--step", "10"}, "sample: unknown flag --step (did you mean --steps?)\n"},
		{[]string{"sample", "-step=10"}, "unknown flag --step (did you mean --steps?)"},
		{[]string{"sample", "--t", "1"}, "unknown flag --t (did you mean --T?)"},
		{[]string{"sample", "--Beta", "1"}, "unknown flag --Beta (did you mean --beta?)"},
		{[]string{"sample", "--replica", "4"}, "(did you mean --replicas?)"},
		{[]string{"sample", "--treads", "4"}, "(did you mean --threads?)"},
		{[]string{"sample", "--save"}, "unknown flag --save (did you mean --save-best or --save-every or --save-states?)"},
		{[]string{"sample", "--stepsize", "10"}, "(did you mean --steps?)"},
		{[]string{"sample", "--burnin", "10"}, "(did you mean --burn?)"},
		{[]string{"sample", "--check", "1m"}, "(did you mean --checkpoint-every?)"},
		{[]string{"sample", "--x"}, "sample: unknown flag --x\n"},
		{[]string{"sample", "--frobnicate"}, "sample: unknown flag --frobnicate\n"},
		{[]string{"tune", "--iteration", "5"}, "tune: unknown flag --iteration (did you mean --iterations?)"},
		{[]string{"exact", "--jsn"}, "exact: unknown flag --jsn (did you mean --json?)"},
		{[]string{"gen", "--mode", "ferro2d:L=3"}, "gen: unknown flag --mode (did you mean --model?)"},
		{[]string{"report", "--no-figure"}, "report: unknown flag --no-figure (did you mean --no-figures?)"},
		{[]string{"bench", "--onyl", "saw"}, "bench: unknown flag --onyl (did you mean --only?)"},
		{[]string{"paper", "--experiments", "rbm"}, "paper: unknown flag --experiments (did you mean --experiment?)"},
		{[]string{"train-rbm", "--cpuprofle", "p"}, "train-rbm: unknown flag --cpuprofle (did you mean --cpuprofile?)"},
	} {
		_, _, err := run(t, tc.args...)
		if ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (exit %d), want exit 2 and %q", tc.args, err, ExitCode(err), tc.want)
		}
	}
}

// TestStreamKeyDocumented: the README and sample -h name the same random
// stream key, (seed, t, sampler).
func TestStreamKeyDocumented(t *testing.T) {
	help, _, err := run(t, "help", "sample")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(help), " "), "random stream of (seed, t, sampler)") {
		t.Errorf("sample -h does not name the stream key (seed, t, sampler):\n%s", help)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	n := 0
	for _, part := range strings.Split(text, "stream of `(")[1:] {
		key, _, _ := strings.Cut(part, ")")
		if key != "seed, t, sampler" && key != "seed, trial, sampler" {
			t.Errorf("README names the stream key (%s), want (seed, t, sampler)", key)
		}
		n++
	}
	if n == 0 {
		t.Errorf("README names no stream key")
	}
}
