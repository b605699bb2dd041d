package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sardonics/internal/kaufman"
	"sardonics/model"
	"sardonics/summary"
)

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(args, &out, &errb)
	return out.String(), errb.String(), err
}

// asMain runs sardonics with args as main does: an error is printed as
// "sardonics: ERR" on stderr, and the exit status is ExitCode's. The CLI
// tests that compare transcripts (flags, command scripts, docs) run it.
func asMain(args []string) (stdout, stderr string, status int, err error) {
	var out, errb bytes.Buffer
	err = Run(args, &out, &errb)
	if err != nil {
		fmt.Fprintf(&errb, "sardonics: %v\n", err)
	}
	return out.String(), errb.String(), ExitCode(err), err
}

// checkGoldenFile compares got with the golden file at path; go test ./cli
// -run TEST -update rewrites it (test names the test that writes it).
func checkGoldenFile(t *testing.T, path, test, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with go test ./cli -run %s -update)", err, test)
	}
	if got != string(want) {
		t.Errorf("%s: transcript differs (go test ./cli -run %s -update rewrites it)\n--- got ---\n%s--- want ---\n%s", path, test, got, want)
	}
}

func readSummary(t *testing.T, dir string) summary.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s summary.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("# x\n3\n0 1 1.0\n0 7 2\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--model", "ferro2d:L=16,bogus=1", "--T", "1", "--out", dir}, "bogus"},
		{[]string{"sample", "--model", "ferro2d:L=x", "--T", "1", "--out", dir}, "--model"},
		{[]string{"sample", "--model", bad, "--T", "1", "--out", dir}, bad + ":4:"},
		{[]string{"sample", "--model", "ferro2d:L=16", "--out", dir}, "--T or --beta"},
		{[]string{"sample", "--model", "ferro2d:L=16", "--T", "1", "--sampler", "nope", "--out", dir}, "unknown sampler"},
		{[]string{"sample", "--model", "ferro2d:L=16", "--T", "1", "--sampler", "blockgibbs", "--out", dir}, "bipartite"},
		{[]string{"sample", "--model", "ferro2d:L=16", "--T", "1", "--params", "kl=0", "--out", dir}, "--params"},
		{[]string{"sample", "--nosuchflag"}, "nosuchflag"},
		{[]string{"frobnicate"}, "unknown subcommand"},
		{[]string{"exact", "--model", "ferro2d:L=16", "--T", "1"}, "exact"},
	}
	for _, c := range cases {
		_, _, err := run(t, c.args...)
		if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v (exit %d), want exit 2 mentioning %q", c.args, err, ExitCode(err), c.want)
		}
	}
}

func TestHelpDocumentsEveryCommand(t *testing.T) {
	for name := range commands {
		out, _, err := run(t, "help", name)
		if err != nil || !strings.Contains(out, "usage: sardonics "+name) {
			t.Errorf("help %s: %v %q", name, err, out)
		}
	}
}

// TestHelpListsModelSpecs (issue 31): sample's --model help lists every
// form model.Load accepts (model.SpecForms; sk: and the dense .npy and
// .npz files were missing), and so does the error for an unknown spec.
func TestHelpListsModelSpecs(t *testing.T) {
	out, _, err := run(t, "help", "sample")
	if err != nil {
		t.Fatal(err)
	}
	_, help, _ := strings.Cut(out, "  -model SPEC\n")
	help, _, _ = strings.Cut(help, "\n  -")
	_, _, err = run(t, "exact", "--model", "nosuch", "--T", "1")
	for _, f := range model.SpecForms {
		if !strings.Contains(help, "\t  "+f.Form+"\n") && !strings.Contains(help, "\t  "+f.Form+" ") {
			t.Errorf("help sample's --model does not list %s:\n%s", f.Form, help)
		}
		if err == nil || !strings.Contains(err.Error(), f.Form) {
			t.Errorf("unknown --model: %v (want it to list %s)", err, f.Form)
		}
	}
}

// The acceptance check: gibbs and metropolis on ferro2d:L=16 at
// T = 2.27 agree with Kaufman's exact energy and specific heat within 4
// standard errors, and energy_mean is the mean of the kept trace rows.
func TestSampleMatchesKaufman(t *testing.T) {
	dir := t.TempDir()
	_, _, err := run(t, "sample", "--model", "ferro2d:L=16", "--T", "2.27", "--sampler", "gibbs,metropolis",
		"--steps", "6000", "--burn", "1000", "--trials", "4", "--seed", "3", "--out", dir, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	want, wantC := kaufman.MeanEnergy(16, 2.27), kaufman.SpecificHeat(16, 2.27)
	s := readSummary(t, dir)
	if len(s.Results) != 2 {
		t.Fatalf("%d results", len(s.Results))
	}
	for _, r := range s.Results {
		if d := math.Abs(r.EnergyMean - want); d > 4*r.EnergyStderr || r.EnergyStderr <= 0 {
			t.Errorf("%s: E = %v +- %v, Kaufman %v", r.Sampler, r.EnergyMean, r.EnergyStderr, want)
		}
		if c := r.Observables.SpecificHeat; !(math.Abs(c.Mean-wantC) <= 4*c.Stderr) || c.Stderr <= 0 {
			t.Errorf("%s: C = %v +- %v, Kaufman %v", r.Sampler, c.Mean, c.Stderr, wantC)
		} else {
			t.Logf("%s: C = %.4f +- %.4f, Kaufman %.4f", r.Sampler, c.Mean, c.Stderr, wantC)
		}
		sum, n := 0.0, 0
		for _, tr := range r.TrialIDs {
			csv, err := os.ReadFile(filepath.Join(dir, r.Sampler, "trial-"+strconv.Itoa(tr), "energy.csv"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
			if len(lines) != 6001 {
				t.Fatalf("%d lines in energy.csv", len(lines))
			}
			for _, l := range lines[1+1000:] {
				v, _ := strconv.ParseFloat(l[strings.IndexByte(l, ',')+1:], 64)
				sum += v
				n++
			}
		}
		if got := sum / float64(n); math.Abs(got-r.EnergyMean) > 1e-9*math.Abs(got) {
			t.Errorf("%s: energy_mean %v, mean of kept rows %v", r.Sampler, r.EnergyMean, got)
		}
		if r.Flips == nil || *r.Flips != 4*6000*256 {
			t.Errorf("%s: flips %v", r.Sampler, r.Flips)
		}
	}
	for _, f := range []string{"acf.png", "trace.png", "run.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// Trials split across processes and merged by report equal one run.
func TestSplitTrialsMergeExactly(t *testing.T) {
	base := t.TempDir()
	args := []string{"sample", "--model", "frustrated2d:L=8,seed=2", "--T", "1", "--sampler", "sardonics,gibbs,sw",
		"--steps", "800", "--burn", "200", "--seed", "9", "--quiet", "--marginals"}
	one := filepath.Join(base, "one")
	if _, _, err := run(t, append(args, "--trials", "3", "--out", one)...); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for tr := 0; tr < 3; tr++ {
		d := filepath.Join(base, "part"+strconv.Itoa(tr))
		parts = append(parts, d)
		if _, _, err := run(t, append(args, "--trials", "1", "--trial-offset", strconv.Itoa(tr), "--out", d)...); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(base, "merged")
	if _, _, err := run(t, append([]string{"report", "--out", merged}, parts...)...); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sardonics", "gibbs", "sw"} {
		for tr := 0; tr < 3; tr++ {
			for _, f := range []string{"energy.csv", "magnetization.csv", "marginals.npy", "correlations.npy"} {
				a, _ := os.ReadFile(filepath.Join(one, name, "trial-"+strconv.Itoa(tr), f))
				b, _ := os.ReadFile(filepath.Join(merged, name, "trial-"+strconv.Itoa(tr), f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s trial %d: %s differs", name, tr, f)
				}
			}
		}
		// The pooled marginals too.
		for _, f := range []string{"marginals.npy", "correlations.npy"} {
			a, _ := os.ReadFile(filepath.Join(one, name, f))
			b, _ := os.ReadFile(filepath.Join(merged, name, f))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: pooled %s differs", name, f)
			}
		}
	}
	sa, sb := readSummary(t, one), readSummary(t, merged)
	for _, s := range []*summary.Summary{&sa, &sb} {
		for _, r := range s.Results {
			r.WallSeconds, r.CPUSeconds, r.ESSPerCPUSecond, r.NsPerFlip = 0, 0, 0, nil
		}
	}
	ja, _ := json.Marshal(sa)
	jb, _ := json.Marshal(sb)
	if !bytes.Equal(ja, jb) {
		t.Errorf("merged summary differs from the single run:\n%s\n%s", ja, jb)
	}
	// Mixing runs of different seeds is refused.
	other := filepath.Join(base, "other")
	if _, _, err := run(t, "sample", "--model", "frustrated2d:L=8,seed=2", "--T", "1", "--sampler", "gibbs",
		"--steps", "800", "--burn", "200", "--seed", "10", "--quiet", "--trials", "1", "--trial-offset", "5", "--out", other); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "report", "--out", filepath.Join(base, "bad"), parts[0], other); err == nil || ExitCode(err) != 2 {
		t.Errorf("merging different seeds: %v", err)
	}
}

func TestExactJSON(t *testing.T) {
	out, _, err := run(t, "exact", "--model", "frustrated2d:L=3,seed=1", "--beta", "0.7", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"variables", "beta", "ln_z", "energy_mean", "energy_var", "energy_distribution"} {
		if _, ok := m[k]; !ok {
			t.Errorf("exact --json lacks %q", k)
		}
	}
}

// TestExactObservables: exact prints sample's observables (<m>, <|m|>,
// C, chi and which quantity chi is of) in its text and JSON outputs, the
// same numbers in both; --marginals adds <s_i> of every spin and
// [i, j, <s_i s_j>] of every coupled pair in sample's order (an RBM's
// visible-hidden pairs, a dense model's nonzero ones), and needs --json.
func TestExactObservables(t *testing.T) {
	for _, tc := range []struct {
		spec, of string
		spins    int
		pairs    [][2]int // the first pairs expected
		npairs   int
	}{
		{"frustrated2d:L=3,seed=1", "m", 9, nil, 18},
		{"ferro2d:L=3", "|m|", 9, [][2]int{{0, 1}, {0, 2}, {0, 3}}, 18},
		{"rbm-random:V=3,H=4,seed=1", "m", 7, [][2]int{{0, 3}, {0, 4}, {0, 5}, {0, 6}, {1, 3}}, 12},
		{"rbm-random:V=5,H=2,seed=2", "m", 7, [][2]int{{0, 5}, {0, 6}, {1, 5}}, 10},
		{"sk:N=6,seed=1", "|m|", 6, [][2]int{{0, 1}, {0, 2}}, 15},
	} {
		text, _, err := run(t, "exact", "--model", tc.spec, "--beta", "0.7")
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, "exact", "--model", tc.spec, "--beta", "0.7", "--json", "--marginals")
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Variables        int          `json:"variables"`
			Magnetization    *float64     `json:"magnetization"`
			AbsMagnetization *float64     `json:"abs_magnetization"`
			SpecificHeat     *float64     `json:"specific_heat"`
			Susceptibility   *float64     `json:"susceptibility"`
			SusceptibilityOf string       `json:"susceptibility_of"`
			VisibleMeans     []float64    `json:"visible_means"`
			Marginals        []float64    `json:"marginals"`
			Correlations     [][3]float64 `json:"correlations"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if res.Magnetization == nil || res.AbsMagnetization == nil || res.SpecificHeat == nil || res.Susceptibility == nil {
			t.Fatalf("%s: exact --json lacks an observable:\n%s", tc.spec, out)
		}
		if res.SusceptibilityOf != tc.of {
			t.Errorf("%s: susceptibility_of %q, want %q", tc.spec, res.SusceptibilityOf, tc.of)
		}
		for _, line := range []string{
			fmt.Sprintf("mean m      %.17g", *res.Magnetization),
			fmt.Sprintf("mean |m|    %.17g", *res.AbsMagnetization),
			fmt.Sprintf("C           %.17g", *res.SpecificHeat),
			fmt.Sprintf("%-11s %.17g", "chi of "+tc.of, *res.Susceptibility),
		} {
			if !strings.Contains(text, line+"\n") {
				t.Errorf("%s: the text output lacks %q:\n%s", tc.spec, line, text)
			}
		}
		if len(res.Marginals) != tc.spins || len(res.Correlations) != tc.npairs {
			t.Fatalf("%s: %d marginals and %d correlations, want %d and %d", tc.spec, len(res.Marginals), len(res.Correlations), tc.spins, tc.npairs)
		}
		for k, p := range tc.pairs {
			if c := res.Correlations[k]; c[0] != float64(p[0]) || c[1] != float64(p[1]) || math.Abs(c[2]) > 1 {
				t.Errorf("%s: correlation %d is %v, want the pair %v", tc.spec, k, c, p)
			}
		}
		for i, v := range res.VisibleMeans { // P(v_i = 1) and <s_i> = 2 P - 1
			if math.Abs(res.Marginals[i]-(2*v-1)) > 1e-12 {
				t.Errorf("%s: <s_%d> = %v, visible mean %v", tc.spec, i, res.Marginals[i], v)
			}
		}
		plain, _, err := run(t, "exact", "--model", tc.spec, "--beta", "0.7", "--json")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plain, "marginals") || strings.Contains(plain, "correlations") {
			t.Errorf("%s: exact --json without --marginals prints them", tc.spec)
		}
	}
	if _, _, err := run(t, "exact", "--model", "ferro2d:L=3", "--beta", "1", "--marginals"); ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), "--json") {
		t.Errorf("--marginals without --json: %v (want a usage error naming --json)", err)
	}
}

func TestGenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "m.txt")
	if _, _, err := run(t, "gen", "--model", "frustrated2d:L=4,seed=4", "--out", f); err != nil {
		t.Fatal(err)
	}
	a, _, err := run(t, "exact", "--model", "frustrated2d:L=4,seed=4", "--beta", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := run(t, "exact", "--model", f, "--beta", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	// Same numbers; only the description line names the spec.
	if strings.SplitN(a, "\n", 2)[1] != strings.SplitN(b, "\n", 2)[1] {
		t.Errorf("exact differs after gen:\n%s\n%s", a, b)
	}
}

// TestOutOfAnotherCommandRefused: finished trials in --out are reused (the
// resume mechanism), so a run with other flags into the same folder must be
// refused, not silently served the old trials.
func TestOutOfAnotherCommandRefused(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sample", "--model", "ferro2d:L=4", "--T", "2", "--sampler", "gibbs", "--trials", "1", "--steps", "50", "--burn", "10", "--out", dir}
	if _, _, err := run(t, append(base, "--quiet")...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, base...); err != nil { // the same command (--quiet aside) is allowed
		t.Fatalf("same command again: %v", err)
	}
	_, _, err := run(t, append(base, "--seed", "2")...)
	if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), "another command") {
		t.Fatalf("other command into the same --out: err %v (exit %d), want exit 2", err, ExitCode(err))
	}
}

// TestHelpMatchesWhatRuns: the help texts say what the commands do. gen
// and the command list name every format gen writes, .npz with its three
// layouts (it held only RBMs once); sample's replica exchange names every
// sampler the registry lets change its temperature in place (hybrid was
// missing) and the ones it does not.
func TestHelpMatchesWhatRuns(t *testing.T) {
	top, _, err := run(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(top, "  gen        write or convert a model to a file (.txt, .qubo, .npz, .npy)\n") {
		t.Errorf("help: the gen line does not name every format:\n%s", top)
	}
	gen, _, _ := run(t, "help", "gen")
	gen = strings.Join(strings.Fields(gen), " ")
	for _, want := range []string{".npz (an RBM as W, b, c; a QUBO as its matrix Q; an Ising model as J and h;", ".npy (an Ising model's J: no fields, no offset", "naming the formats that can"} {
		if !strings.Contains(gen, want) {
			t.Errorf("help gen lacks %q:\n%s", want, gen)
		}
	}
	sample, _, _ := run(t, "help", "sample")
	_, raw, _ := strings.Cut(sample, "\nReplica exchange: ")
	raw, _, _ = strings.Cut(raw, "\n\n")
	for _, l := range strings.Split(raw, "\n") {
		if len(l) > 76 {
			t.Errorf("help sample's replica exchange: line of %d bytes: %q", len(l), l)
		}
	}
	para := strings.Join(strings.Fields(raw), " ")
	tempered, untempered := temperedSamplers(), untemperedSamplers()
	if !slices.Contains(tempered, "hybrid") || !slices.Contains(tempered, "blockgibbs") || !slices.Equal(untempered, []string{"sw"}) {
		t.Fatalf("registry: tempered %v, untempered %v", tempered, untempered)
	}
	if want := "--replicas R runs every sampler that can change its temperature in place (" + strings.Join(tempered, ", ") + "; not sw) as R replicas"; !strings.HasPrefix(para, want) {
		t.Errorf("help sample's replica exchange: %.200s\nwant it to start %q", para, want)
	}
}

// TestBenchOutDefault (bench.json overwrote the repository's tracked
// bench.json when run from its root): without --out, bench writes a new
// folder in the system's temporary folder each run, never the working
// directory, and prints where; --out DIR is where it writes.
func TestBenchOutDefault(t *testing.T) {
	tmp, work := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Chdir(work)
	var paths []string
	for range 2 {
		out, _, err := run(t, "bench", "--only", "handoff", "--budget", "5ms", "--cc", "none")
		if err != nil {
			t.Fatal(err)
		}
		i := strings.LastIndex(out, "wrote ")
		p := strings.TrimSpace(out[i+len("wrote "):])
		if filepath.Dir(filepath.Dir(p)) != tmp || !strings.HasPrefix(filepath.Base(filepath.Dir(p)), "bench-") || filepath.Base(p) != "bench.json" {
			t.Errorf("bench wrote %s (want TMPDIR/bench-.../bench.json)", p)
		}
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
		paths = append(paths, p)
	}
	if paths[0] == paths[1] {
		t.Errorf("two runs wrote the same %s", paths[0])
	}
	if ents, _ := os.ReadDir(work); len(ents) > 0 {
		t.Errorf("bench wrote into the working directory: %v", ents)
	}
	dir := filepath.Join(work, "b")
	if out, _, err := run(t, "bench", "--only", "handoff", "--budget", "5ms", "--cc", "none", "--out", dir); err != nil || !strings.Contains(out, "wrote "+filepath.Join(dir, "bench.json")) {
		t.Errorf("bench --out %s: %v\n%s", dir, err, out)
	}
}

// TestTuneIterationsCountFromOne: tune names its best iteration counting
// from 1, as rewards.png's axis does (it printed "iteration 0" for the
// first).
func TestTuneIterationsCountFromOne(t *testing.T) {
	dir := t.TempDir()
	out, _, err := run(t, "tune", "--model", "ferro2d:L=4", "--T", "1", "--iterations", "4", "--iter-steps", "20", "--kernels", "5", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "tuning.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var rewards []float64
	for _, l := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
		v, _ := strconv.ParseFloat(l[strings.LastIndexByte(l, ',')+1:], 64)
		rewards = append(rewards, v)
	}
	best := 0
	for i, r := range rewards {
		if r > rewards[best] {
			best = i
		}
	}
	if want := fmt.Sprintf("best reward %.4f at iteration %d: ", rewards[best], best+1); !strings.Contains(out, want) {
		t.Errorf("tune printed:\n%s\nwant %q (rewards %v)", out, want, rewards)
	}
}
