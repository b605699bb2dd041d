package atomicfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileMkdir is WriteFile after creating path's folder if
// needed (trial folders, checkpoints, summaries).
func WriteFileMkdir(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return WriteFile(path, data)
}

// WriteStreamMkdir is WriteFileMkdir for data that write produces through
// a buffered writer, so that a large file never sits in memory whole.
func WriteStreamMkdir(path string, write func(w *bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, commit, abort, err := Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return commit()
}

// WriteFile writes data to a temporary file beside path, syncs it and
// renames it to path.
func WriteFile(path string, data []byte) error {
	f, commit, abort, err := Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return commit()
}

// Create creates a temporary file beside path for a writer that
// streams (profiles, traces): commit syncs and closes it, makes it
// readable (0644) and renames it to path; abort closes and removes it.
func Create(path string) (f *os.File, commit func() error, abort func(), err error) {
	f, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, nil, nil, err
	}
	tmp := f.Name()
	abort = func() {
		f.Close()
		os.Remove(tmp)
	}
	commit = func() error {
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp, 0o644)
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	return f, commit, abort, nil
}
