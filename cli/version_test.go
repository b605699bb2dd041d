package cli

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, err := run(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"sardonics ", "\nrevision  ", "\ntime      ", "\ngo        go1.", "\nmachine   ", "\ncpu       "} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
	if _, _, err := run(t, "version", "extra"); ExitCode(err) != 2 {
		t.Errorf("version with an argument: %v", err)
	}
}
