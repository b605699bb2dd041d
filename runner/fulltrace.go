package runner

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"sardonics/npy"
	"sardonics/sampler"
	"sardonics/summary"
)

// With --save-trace (Config.SaveTrace) a trial streams every step's
// energy, magnetization and (with two sets of replicas) overlap to
// energy.npy (float64), magnetization.npy (int32) and overlap.npy
// (float64) in its folder: NumPy arrays of one value per step, burn-in
// included, which numpy.load (or numpy.load(..., mmap_mode="r") for long
// ones) reads. They grow as the trial runs, in files named .NAME.part
// beside them, whose header's shape is written when the trial ends and
// the file renamed: a finished trial's files are whole, and an
// interrupted trial's parts are cut back to the steps of its checkpoint
// when it resumes, so that the resumed files equal an uninterrupted run's.

// fullTrace is a trial's streams of every step (nil without --save-trace).
type fullTrace struct {
	cols []*fullColumn
}

// fullColumn is one stream: a .npy of one value per step.
type fullColumn struct {
	path  string // the final name
	descr string // the NumPy dtype
	size  int    // bytes a value
	f     *os.File
	w     *bufio.Writer
	buf   [8]byte
}

// npyHeaderLen is the header every stream has: model.NPYHeader of a 1-D
// shape of up to 19 digits pads to 128 bytes, so the final shape fits in
// the header written at the start.
const npyHeaderLen = 128

func (c *fullColumn) part() string {
	return filepath.Join(filepath.Dir(c.path), "."+filepath.Base(c.path)+".part")
}

// openFullTrace opens trial t's streams in dir, for a trial that has made
// steps steps already (a resumed one: its parts are cut back to them).
func openFullTrace(dir, name string, tn int, overlap bool, steps int) (*fullTrace, error) {
	td := summary.TrialDir(dir, name, tn)
	if err := os.MkdirAll(td, 0o755); err != nil {
		return nil, err
	}
	ft := &fullTrace{cols: []*fullColumn{
		{path: filepath.Join(td, "energy.npy"), descr: "<f8", size: 8},
		{path: filepath.Join(td, "magnetization.npy"), descr: "<i4", size: 4},
	}}
	if overlap {
		ft.cols = append(ft.cols, &fullColumn{path: filepath.Join(td, "overlap.npy"), descr: "<f8", size: 8})
	}
	for _, c := range ft.cols {
		if err := c.open(steps); err != nil {
			ft.close()
			return nil, err
		}
	}
	return ft, nil
}

func (c *fullColumn) open(steps int) error {
	p := c.part()
	var err error
	if steps == 0 {
		if c.f, err = os.Create(p); err != nil {
			return err
		}
		if _, err = c.f.Write(header(c.descr, 0)); err != nil {
			return err
		}
	} else {
		if c.f, err = os.OpenFile(p, os.O_RDWR, 0); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return &sampler.UsageError{Msg: fmt.Sprintf("%s: missing, but the checkpoint has %d steps of its trace (--save-trace); delete the trial's checkpoint to start it afresh", p, steps)}
			}
			return err
		}
		want := int64(npyHeaderLen + steps*c.size)
		st, err := c.f.Stat()
		if err != nil {
			return err
		}
		if st.Size() < want {
			return &sampler.UsageError{Msg: fmt.Sprintf("%s: %d bytes, fewer than the %d steps of the checkpoint need (%d); delete the trial's checkpoint to start it afresh", p, st.Size(), steps, want)}
		}
		if err := c.f.Truncate(want); err != nil {
			return err
		}
		if _, err := c.f.Seek(want, 0); err != nil {
			return err
		}
	}
	c.w = bufio.NewWriterSize(c.f, 1<<16)
	return nil
}

// header is the .npy header of n values of descr, npyHeaderLen bytes.
func header(descr string, n int) []byte {
	h := npy.Header(descr, n)
	if len(h) != npyHeaderLen {
		panic(fmt.Sprintf("npy header of %d values is %d bytes", n, len(h))) // cannot happen below 10^19 values
	}
	return h
}

// add appends one step's values.
func (ft *fullTrace) add(e float64, m int32, q float64) error {
	vals := [3]uint64{math.Float64bits(e), uint64(uint32(m)), math.Float64bits(q)}
	for i, c := range ft.cols {
		if c.size == 8 {
			binary.LittleEndian.PutUint64(c.buf[:], vals[i])
		} else {
			binary.LittleEndian.PutUint32(c.buf[:], uint32(vals[i]))
		}
		if _, err := c.w.Write(c.buf[:c.size]); err != nil {
			return fmt.Errorf("%s: %w", c.part(), err)
		}
	}
	return nil
}

// flush writes what is buffered (at a checkpoint: the parts then hold
// every step the checkpoint has).
func (ft *fullTrace) flush() error {
	for _, c := range ft.cols {
		if err := c.w.Flush(); err != nil {
			return fmt.Errorf("%s: %w", c.part(), err)
		}
	}
	return nil
}

// finish writes the headers of steps values, syncs the parts and renames
// them to their names.
func (ft *fullTrace) finish(steps int) error {
	if err := ft.flush(); err != nil {
		return err
	}
	for _, c := range ft.cols {
		if _, err := c.f.WriteAt(header(c.descr, steps), 0); err != nil {
			return err
		}
		if err := c.f.Sync(); err != nil {
			return err
		}
		if err := c.f.Close(); err != nil {
			return err
		}
		c.f = nil
		if err := os.Rename(c.part(), c.path); err != nil {
			return err
		}
	}
	return nil
}

// close closes the parts without finishing them (an interrupted trial:
// they stay for its resumption).
func (ft *fullTrace) close() {
	for _, c := range ft.cols {
		if c.f != nil {
			if c.w != nil {
				c.w.Flush()
			}
			c.f.Close()
			c.f = nil
		}
	}
}
