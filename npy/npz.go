package npy

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"
)

// An .npz archive is a zip of .npy files, one an array, named NAME.npy.

// Array is one entry of an archive: its name without ".npy" and its
// .npy bytes.
type Array struct {
	Name string
	Data []byte
}

// Options are how WriteArchive writes: stored (uncompressed, as
// numpy.savez writes) or deflated (numpy.savez_compressed) with Compress;
// Modified is every entry's time (zero: none recorded).
type Options struct {
	Compress bool
	Modified time.Time
}

// WriteArchive writes arrays as an .npz archive.
func WriteArchive(w io.Writer, o Options, arrays ...Array) error {
	zw := zip.NewWriter(w)
	method := zip.Store
	if o.Compress {
		method = zip.Deflate
	}
	for _, a := range arrays {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: a.Name + ".npy", Method: method, Modified: o.Modified})
		if err != nil {
			return err
		}
		if _, err := f.Write(a.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Archive is WriteArchive's stored archive as bytes.
func Archive(arrays ...Array) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteArchive(&b, Options{}, arrays...); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Entry is the content of a zip entry of at most limit bytes: a
// stored entry is a slice of data itself (an N = 4096 matrix is 128 MiB:
// no copy), a compressed one is read into a buffer of its declared size.
func Entry(f *zip.File, data []byte, limit uint64) ([]byte, error) {
	if f.Method == zip.Store && f.CompressedSize64 == f.UncompressedSize64 {
		if off, err := f.DataOffset(); err == nil && off >= 0 && uint64(off)+f.UncompressedSize64 <= uint64(len(data)) {
			b := data[off : uint64(off)+f.UncompressedSize64]
			if crc32.ChecksumIEEE(b) != f.CRC32 {
				return nil, errors.New("checksum error (expected an intact zip entry)")
			}
			return b, nil
		}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%v (expected a readable zip entry)", err)
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, min(f.UncompressedSize64, limit)+1))
	if _, err := io.Copy(buf, io.LimitReader(rc, int64(limit)+1)); err != nil {
		return nil, fmt.Errorf("%v (expected a readable zip entry)", err)
	}
	if uint64(buf.Len()) > limit {
		return nil, fmt.Errorf("more than %d bytes (expected a smaller array)", limit)
	}
	return buf.Bytes(), nil
}
