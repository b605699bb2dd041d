package runner

import (
	"os"
	"path/filepath"

	"sardonics/model"
)

// WriteFileAtomic creates path's folder if needed and writes data with
// model.WriteFileAtomic (temporary file in the same folder, then rename),
// so readers never see a partial file.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return model.WriteFileAtomic(path, data)
}
