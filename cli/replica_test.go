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
	base := t.TempDir()
	args := []string{"sample", "--model", "spinglass3d:L=4,seed=2", "--beta", "2", "--sampler", "sardonics,metropolis",
		"--replicas", "6", "--ladder", "adaptive", "--overlap", "--swap-every", "2", "--save-states",
		"--steps", "30000", "--burn", "6000", "--trials", "2", "--seed", "5", "--quiet"}
	full := filepath.Join(base, "full")
	if _, _, err := run(t, append(args, "--out", full, "--threads", "1")...); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(base, "part")
	termAtCheckpoint(t, part, append(args, "--out", part, "--checkpoint-every", "50ms", "--threads", "2")...)
	if _, err := os.Stat(filepath.Join(part, "summary.json")); err == nil {
		t.Skip("the run finished before the signal arrived")
	}
	if _, _, err := run(t, "sample", "--resume", part, "--quiet"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sardonics", "metropolis"} {
		for _, tr := range []string{"trial-0", "trial-1"} {
			for _, f := range []string{"energy.csv", "overlap.csv", "walk.csv", "states.npy"} {
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
	} {
		_, _, err := run(t, append(common, c.args...)...)
		if err == nil || ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v (exit %d), want exit 2 with %q", c.args, err, ExitCode(err), c.want)
		}
	}
}
