package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A write replaces the file whole and leaves nothing beside it; a stream
// whose writer fails leaves the old file as it was and no temporary file;
// folders are made as needed.
func TestWrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f.txt")
	if err := WriteFileMkdir(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	fail := errors.New("writer failed")
	err := WriteStreamMkdir(p, func(w *bufio.Writer) error {
		w.WriteString("partial")
		return fail
	})
	if !errors.Is(err, fail) {
		t.Fatalf("failed stream: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("file holds %q after a failed stream (expected the last whole write)", b)
	}
	if err := WriteStreamMkdir(p, func(w *bufio.Writer) error { _, err := w.WriteString("three"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "three" {
		t.Errorf("file holds %q", b)
	}
	es, _ := os.ReadDir(filepath.Dir(p))
	if len(es) != 1 {
		t.Errorf("the folder holds %d entries (expected the file alone, no temporary files)", len(es))
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}
