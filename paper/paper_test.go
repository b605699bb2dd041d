package paper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A smoke run of every experiment at 1% of the paper's length writes every
// output and tables that name each experiment and claim.
func TestScaledRun(t *testing.T) {
	if testing.Short() {
		t.Skip("every experiment at scale 0.01 (about 4 s): the full suite runs it")
	}
	dir := t.TempDir()
	if err := Run(Config{Out: dir, Scale: 0.01, Trials: 2, Seed: 1}, os.Stderr); err != nil {
		t.Fatal(err)
	}
	for _, ex := range Experiments {
		for _, f := range []string{"summary.json", "acf.png", "trace.png", "rewards.png"} {
			if _, err := os.Stat(filepath.Join(dir, ex.Name, f)); err != nil {
				t.Errorf("%s: %v", ex.Name, err)
			}
		}
		_, err := os.Stat(filepath.Join(dir, ex.Name, "model.png"))
		if want := ex.Name != "rbm"; want != (err == nil) {
			t.Errorf("%s: model.png written %v, want %v", ex.Name, err == nil, want)
		}
		if HasPicture(ex) != (ex.Name != "rbm") {
			t.Errorf("%s: HasPicture is %v", ex.Name, HasPicture(ex))
		}
	}
	table, _ := os.ReadFile(filepath.Join(dir, "table.md"))
	claimsMD, _ := os.ReadFile(filepath.Join(dir, "claims.md"))
	for _, ex := range Experiments {
		if !strings.Contains(string(table), "| "+ex.Name+" |") {
			t.Errorf("table.md lacks %s", ex.Name)
		}
	}
	// Every claim has a row (all experiments ran): header and separator
	// aside, one table line per claim.
	if n := strings.Count(string(claimsMD), "\n| ") - 1; n != len(claims) {
		t.Errorf("claims.md has %d claim rows, want %d:\n%s", n, len(claims), claimsMD)
	}
	// The tables rebuild from the summaries alone.
	if err := Run(Config{Out: dir, Scale: 0.01, TablesOnly: true}, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// TestOtherSettingsRefused: a run into a folder holding a paper run of
// other settings is refused before it starts, with the --resume that
// continues that run, its folder absolute (issue 31) even when --out was
// given relative.
func TestOtherSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("runA", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("runA", stateFile), []byte(`{"scale": 0.5, "trials": 3, "seed": 1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Run(Config{Out: "runA", Scale: 0.01, Trials: 2, Seed: 1}, os.Stderr)
	want := "runA holds a paper run with other settings"
	hint := "or continue it with --resume " + filepath.Join(dir, "runA")
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), hint) {
		t.Fatalf("got %v, want %q ... %q", err, want, hint)
	}
}
