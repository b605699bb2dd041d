package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Replica exchange through the command line: an interrupted run with an
// adaptive ladder, two sets (overlap) and saved states resumes to files
// byte-identical to an uninterrupted run's, whatever the number of
// threads; stats.json and summary.json carry the ladder, the swap
// acceptance, the round trips and the Binder ratio.
func TestReplicaResumeIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("an end-to-end run of seconds: the full suite runs it")
	}
	base := t.TempDir()
	args := []string{"sample", "--model", "spinglass3d:L=4,seed=2", "--beta", "2", "--sampler", "sardonics,metropolis",
		"--replicas", "6", "--ladder", "adaptive", "--overlap", "--swap-every", "2", "--save-states",
		"--steps", "30000", "--burn", "6000", "--trials", "2", "--seed", "5", "--quiet"}
	full, part := fullAndResumed(t, base, args)
	for _, name := range []string{"sardonics", "metropolis"} {
		for _, tr := range []string{"trial-0", "trial-1"} {
			for _, f := range []string{"energy.csv", "overlap.csv", "rungs.csv", "walk.csv", "states.npy"} {
				a, _ := os.ReadFile(filepath.Join(full, name, tr, f))
				b, _ := os.ReadFile(filepath.Join(part, name, tr, f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s %s %s: resumed run differs from the uninterrupted one", name, tr, f)
				}
			}
		}
	}
	if a, b := stripTimings(t, full), stripTimings(t, part); !bytes.Equal(a, b) {
		t.Errorf("resumed summary differs:\n%.300s\n%.300s", a, b)
	}
	var st struct {
		Replica struct {
			Ladder         []float64  `json:"ladder"`
			SwapAcceptance []*float64 `json:"swap_acceptance"`
			RoundTrips     int64      `json:"round_trips"`
		} `json:"replica"`
	}
	js, _ := os.ReadFile(filepath.Join(full, "metropolis", "trial-0", "stats.json"))
	if err := json.Unmarshal(js, &st); err != nil {
		t.Fatal(err)
	}
	if l := st.Replica.Ladder; len(l) != 6 || l[0] != 0.2 || l[5] != 2 || len(st.Replica.SwapAcceptance) != 5 || st.Replica.RoundTrips == 0 {
		t.Errorf("stats.json replica record: %s", js)
	}
	sum, _ := os.ReadFile(filepath.Join(full, "summary.json"))
	if !strings.Contains(string(sum), `"binder"`) || !strings.Contains(string(sum), `"round_trips_per_trial"`) {
		t.Errorf("summary.json lacks the replica summary")
	}
	for _, f := range []string{"replicas.png", "overlap.png"} {
		if _, err := os.Stat(filepath.Join(full, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestReplicaUsageErrors(t *testing.T) {
	common := []string{"sample", "--model", "ferro2d:L=4", "--steps", "100", "--trials", "1", "--quiet", "--out", t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--beta", "1", "--sampler", "sw", "--replicas", "4"}, "sw cannot change its temperature"},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "4", "--beta-min", "2"}, "expected 0 < beta-min < the target beta 1"},
		{[]string{"--beta", "0", "--sampler", "gibbs", "--replicas", "4"}, "target beta above 0"},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--overlap"}, "need --replicas R"},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "4", "--ladder", "even"}, `--ladder "even"`},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "-1"}, "--replicas -1"},
		// Issue 31: one replica was single chains in silence, but refused with --overlap.
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "1"}, "--replicas 1: replica exchange needs at least 2 replicas; omit --replicas for single chains"},
		{[]string{"--beta", "1", "--sampler", "gibbs", "--replicas", "1", "--overlap"}, "--replicas 1: replica exchange needs at least 2 replicas"},
	} {
		_, _, err := run(t, append(common, c.args...)...)
		if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v (exit %d), want exit 2 with %q", c.args, err, ExitCode(err), c.want)
		}
	}
}

// TestHybridReplicaTunesCycles (issue 24, items 2-3): hybrid inside
// replica exchange without --mix swaps on the work clock and chooses each
// rung's cycle during the burn-in (recorded in stats.json); with --mix it
// keeps the cycle; --swap-work and --swap-every together are refused.
func TestHybridReplicaTunesCycles(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sample", "--model", "frustrated2d:L=4,seed=3", "--beta", "2", "--replicas", "3", "--sampler", "hybrid",
		"--steps", "400", "--burn", "200", "--trials", "1", "--tune-cycles", "0.01", "--quiet", "--no-figures"}
	if _, stderr, err := run(t, append(base, "--out", filepath.Join(dir, "tuned"))...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var st struct {
		Replica struct {
			SwapWork float64 `json:"swap_work"`
			Cycles   *struct {
				Rungs []struct {
					Cycle [2]int `json:"cycle"`
				} `json:"rungs"`
			} `json:"cycles"`
		} `json:"replica"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "tuned", "hybrid", "trial-0", "stats.json"))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil || st.Replica.SwapWork != 1 || st.Replica.Cycles == nil || len(st.Replica.Cycles.Rungs) != 3 {
		t.Fatalf("stats.json replica: %+v (%v)", st.Replica, err)
	}
	if _, stderr, err := run(t, append(base, "--mix", "1:2", "--out", filepath.Join(dir, "fixed"))...); err != nil {
		t.Fatalf("--mix 1:2: %v\n%s", err, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "fixed", "hybrid", "trial-0", "stats.json")); strings.Contains(string(b), `"cycles"`) {
		t.Errorf("--mix 1:2 was tuned anyway:\n%s", b)
	}
	if _, _, err := run(t, append(base, "--swap-every", "2", "--swap-work", "1", "--out", filepath.Join(dir, "both"))...); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("--swap-every with --swap-work: %v", err)
	}
}
