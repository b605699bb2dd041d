// Package golden compares a test's output with a golden file under
// testdata/, or rewrites the file when the test is told to: one copy of
// that logic for the tests that pin streams and traces.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Check fails tb unless got is the content of path; with update it writes
// got to path instead (how is what the failure says to run).
func Check(tb testing.TB, path, got string, update bool, how string) {
	tb.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (%s writes it)", err, how)
	}
	if got != string(want) {
		tb.Errorf("%s changed (%s rewrites it, on purpose only):\n%s\nwant\n%s", path, how, got, want)
	}
}
