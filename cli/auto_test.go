package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sardonics/replica"
	"sardonics/runner"
	"sardonics/summary"
)

// autoArgs is a small --replicas auto run (without --out).
var autoArgs = []string{"sample", "--model", "spinglass2d:L=8,seed=1", "--beta", "2", "--sampler", "metropolis", "--replicas", "auto",
	"--beta-min", "0.3", "--steps", "2000", "--trials", "2", "--seed", "3", "--quiet", "--no-figures"}

// autoChoice is summary.json's replica.replicas_auto of dir's first
// sampler, checked against the ladder it ran.
func autoChoice(t *testing.T, dir string) *replica.AutoRungs {
	t.Helper()
	r := readSummary(t, dir).Results[0].Replica
	if r == nil || r.Auto == nil {
		t.Fatalf("%s: summary.json has no replica.replicas_auto", dir)
	}
	if a := r.Auto; a.Rungs != r.Rungs || len(r.Ladder) != a.Rungs || a.Rungs < 2 || !(a.Barrier > 0) || a.PilotRounds < replica.PilotBurn+replica.PilotRounds || a.Rule == "" {
		t.Fatalf("%s: replicas_auto %+v for a ladder of %d rungs", dir, a, r.Rungs)
	}
	return r.Auto
}

// TestReplicasAuto (issue 35, item 5): --replicas auto chooses R from a
// pilot's barrier, says so on stderr and in the settings line, records it
// in summary.json, stats.json and command.json; the same seed chooses the
// same R and ladder (at equal shares of the pilot's barrier), and the
// trials run that ladder.
func TestReplicasAuto(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	stdout, stderr, err := run(t, append(autoArgs, "--out", a)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	x := autoChoice(t, a)
	line := regexp.MustCompile(`sardonics: --replicas auto: (\d+) replicas; barrier [0-9.]+, the sum of the swap rejection rates of a 32-rung metropolis pilot \(384 swap rounds, [0-9.e-]+ s CPU\); rule: 2 x barrier \+ 1 = (\d+)`).FindStringSubmatch(stderr)
	if line == nil || line[1] != strconv.Itoa(x.Rungs) {
		t.Errorf("stderr lacks the choice of %d replicas:\n%s", x.Rungs, stderr)
	}
	if want := strconv.Itoa(x.Rungs) + " replicas (auto: barrier "; !strings.Contains(stdout, want) {
		t.Errorf("settings line lacks %q:\n%s", want, stdout)
	}
	if st := readStats(t, a, "metropolis", 1).Replica; st == nil || st.Auto == nil || !reflect.DeepEqual(*st.Auto, *x) {
		t.Errorf("stats.json replica.replicas_auto: %+v, want %+v", st, x)
	}
	var cmd commandFile
	js, _ := os.ReadFile(filepath.Join(a, "command.json"))
	if err := json.Unmarshal(js, &cmd); err != nil || cmd.ReplicasAuto == nil || !reflect.DeepEqual(*cmd.ReplicasAuto, *x) || cmd.Settings["replicas"] != "auto" {
		t.Errorf("command.json: %+v (%v)", cmd.ReplicasAuto, err)
	}
	// Twice: the same choice (its CPU aside) and the same trials.
	if _, stderr, err := run(t, append(autoArgs, "--out", b)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	y := *autoChoice(t, b)
	y.PilotCPUSeconds = x.PilotCPUSeconds
	if !reflect.DeepEqual(y, *x) {
		t.Errorf("two runs of the same seed chose differently:\n%+v\n%+v", *x, y)
	}
	// The ladder the trials ran is the choice's, from beta-min to beta.
	if r := readSummary(t, a).Results[0].Replica; len(x.Betas) != x.Rungs || !reflect.DeepEqual(r.Ladder, x.Betas) || x.Betas[0] != 0.3 || x.Betas[x.Rungs-1] != 2 {
		t.Errorf("the run's ladder %v, the choice's %v", r.Ladder, x.Betas)
	}
	for tr := range 2 {
		sameFiles(t, summary.TrialDir(a, "metropolis", tr), summary.TrialDir(b, "metropolis", tr), "energy.csv", "walk.csv", "rungs.csv")
	}
}

// TestReplicasAutoResumeReusesChoice: --resume takes the replica count
// that command.json recorded, without a pilot: a folder whose command.json
// says 5 (not what the pilot would choose) runs 5.
func TestReplicasAutoResumeReusesChoice(t *testing.T) {
	base := t.TempDir()
	a, c := filepath.Join(base, "a"), filepath.Join(base, "c")
	if _, stderr, err := run(t, append(autoArgs, "--out", a)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	x := autoChoice(t, a)
	if x.Rungs == 5 {
		t.Fatal("the pilot chose 5: pick another count for the test")
	}
	var cmd map[string]any
	js, _ := os.ReadFile(filepath.Join(a, "command.json"))
	if err := json.Unmarshal(js, &cmd); err != nil {
		t.Fatal(err)
	}
	cmd["replicas_auto"].(map[string]any)["rungs"] = 5
	js, _ = json.Marshal(cmd)
	os.MkdirAll(c, 0o755)
	if err := os.WriteFile(filepath.Join(c, "command.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := run(t, "sample", "--resume", c, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "--replicas auto: 5 replicas, as chosen when this run started") {
		t.Errorf("stderr: %s", stderr)
	}
	if y := autoChoice(t, c); y.Rungs != 5 {
		t.Errorf("resumed with %d replicas, want the recorded 5", y.Rungs)
	}
}

// TestReplicasAutoResumeIsIdentical: a --replicas auto run interrupted at
// a checkpoint and resumed writes the uninterrupted run's files byte for
// byte, and the same summary (the pilots' CPU aside).
func TestReplicasAutoResumeIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	full := resumeIsIdentical(t, "metropolis", []string{"energy.csv", "walk.csv", summary.RungsFile},
		"sample", "--model", "spinglass2d:L=8,seed=1", "--beta", "2", "--sampler", "metropolis", "--replicas", "auto", "--beta-min", "0.3",
		"--overlap", "--steps", "30000", "--burn", "3000", "--trials", "2", "--seed", "5", "--quiet", "--no-figures")
	autoChoice(t, full)
}

// TestReplicasAutoEverywhere: --replicas auto with every kernel (each
// the pilot's), two sets with the cluster move, each ladder, and --budget.
func TestReplicasAutoEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	base := t.TempDir()
	common := []string{"sample", "--model", "spinglass2d:L=6,seed=2", "--beta", "2", "--replicas", "auto", "--beta-min", "0.3",
		"--trials", "1", "--seed", "4", "--quiet", "--no-figures"}
	for i, c := range [][]string{
		{"--sampler", "metropolis", "--ladder", "adaptive", "--steps", "3000", "--burn", "1500"},
		{"--sampler", "gibbs", "--ladder", "variance", "--overlap", "--cluster", "icm", "--steps", "3000", "--burn", "1500"},
		{"--sampler", "sardonics", "--steps", "600"},
		{"--sampler", "hybrid", "--mix", "1:3", "--overlap", "--cluster", "icm", "--steps", "600"},
		{"--sampler", "metropolis,gibbs", "--budget", "200ms"},
	} {
		dir := filepath.Join(base, strconv.Itoa(i))
		_, stderr, err := run(t, append(append(common, c...), "--out", dir)...)
		if err != nil {
			t.Errorf("%v: %v\n%s", c, err, stderr)
			continue
		}
		s := readSummary(t, dir)
		x := autoChoice(t, dir)
		for _, r := range s.Results {
			if r.Replica == nil || r.Replica.Auto == nil || !reflect.DeepEqual(*r.Replica.Auto, *x) {
				t.Errorf("%v: %s's replica: %+v, want replicas_auto %+v", c, r.Sampler, r.Replica, x)
			}
		}
		if want := runner.PilotSampler(s.Results[0].Sampler); x.PilotSampler != want || s.Results[0].Sampler == "hybrid" && want != "metropolis" {
			t.Errorf("%v: pilot of %s, want %s (the first sampler's, Metropolis for hybrid)", c, x.PilotSampler, want)
		}
		if c[len(c)-2] == "--budget" && !strings.Contains(stderr, "% of --budget") {
			t.Errorf("%v: stderr does not give the pilot's share of the budget:\n%s", c, stderr)
		}
	}
}

// TestReplicasAutoUsageErrors: --replicas takes a count or auto; auto
// needs a target beta above 0.
func TestReplicasAutoUsageErrors(t *testing.T) {
	common := []string{"sample", "--model", "ferro2d:L=4", "--steps", "100", "--trials", "1", "--quiet", "--out", t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "foo"}, `invalid value "foo" for flag -replicas: expected a number of replicas R >= 2, 0 for none, or auto`},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "Auto"}, `invalid value "Auto" for flag -replicas`},
		{[]string{"--beta", "0", "--sampler", "gibbs", "--replicas", "auto"}, "--replicas auto needs a target beta above 0"},
		{[]string{"--beta", "1", "--sampler", "sw", "--replicas", "auto"}, "sw cannot change its temperature"},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "auto", "--beta-min", "2"}, "expected 0 < beta-min < the target beta 1"},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "2000"}, "--replicas 2000 (expected at most 1024)"},
	} {
		_, _, err := run(t, append(common, c.args...)...)
		if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v (exit %d), want exit 2 with %q", c.args, err, ExitCode(err), c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(common[len(common)-1], "command.json")); err == nil {
		t.Error("a refused command left its command.json")
	}
}
