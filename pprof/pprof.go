package pprof

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sardonics/atomicfile"
)

// Flags are the profiling flags of one subcommand.
type Flags struct {
	CPU, Mem, Trace string
}

// Register adds --cpuprofile, --memprofile and --trace to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.CPU, "cpuprofile", "", "write a CPU profile to `FILE` (read it with go tool pprof); combines with --memprofile and --trace")
	fs.StringVar(&f.Mem, "memprofile", "", "write a heap profile to `FILE` when the command ends")
	fs.StringVar(&f.Trace, "trace", "", "write an execution trace to `FILE` (go tool trace)")
}

// MemProfileRate is the heap sampling rate (bytes per sample) while
// --memprofile is on: finer than the runtime's default of 512 KiB, as
// github.com/pkg/profile used to set it.
const MemProfileRate = 4096

// Start starts every requested profile at once (CPU, trace and heap may be
// combined); the returned function stops them and writes each file. Each
// file is created at Start, in the folder asked for, so that a path that
// cannot be written fails before the command runs, and is renamed into
// place at stop, so that a profile cut short never overwrites a good one.
func (f *Flags) Start() (stop func() error, err error) {
	type out struct {
		flag, dst string
		tmp       *os.File
		commit    func() error
		abort     func()
	}
	var outs []*out
	seen := map[string]string{}
	for _, o := range []struct{ flag, dst string }{{"cpuprofile", f.CPU}, {"trace", f.Trace}, {"memprofile", f.Mem}} {
		if o.dst == "" {
			continue
		}
		abs, err := filepath.Abs(o.dst)
		if err != nil {
			abs = o.dst
		}
		if prev, dup := seen[abs]; dup {
			return nil, fmt.Errorf("--%s and --%s both write %s (expected a file for each)", prev, o.flag, o.dst)
		}
		seen[abs] = o.flag
		outs = append(outs, &out{flag: o.flag, dst: o.dst})
	}
	cleanup := func() {
		for _, o := range outs {
			if o.abort != nil {
				o.abort()
			}
		}
	}
	for _, o := range outs {
		t, commit, abort, err := atomicfile.Create(o.dst)
		if err != nil {
			cleanup()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the temporary name means nothing to the user
			}
			return nil, fmt.Errorf("--%s %s: %v", o.flag, o.dst, err)
		}
		o.tmp, o.commit, o.abort = t, commit, abort
	}
	byFlag := func(name string) *out {
		for _, o := range outs {
			if o.flag == name {
				return o
			}
		}
		return nil
	}
	cpu, tr, mem := byFlag("cpuprofile"), byFlag("trace"), byFlag("memprofile")
	if cpu != nil {
		if err := pprof.StartCPUProfile(cpu.tmp); err != nil {
			cleanup()
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
	}
	if tr != nil {
		if err := trace.Start(tr.tmp); err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
			}
			cleanup()
			return nil, fmt.Errorf("--trace: %v", err)
		}
	}
	oldRate := runtime.MemProfileRate
	if mem != nil {
		runtime.MemProfileRate = MemProfileRate
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
		}
		if tr != nil {
			trace.Stop()
		}
		var first error
		keep := func(err error) {
			if err != nil && first == nil {
				first = err
			}
		}
		if mem != nil {
			runtime.GC() // the heap profile shows the state as of the last GC
			keep(pprof.Lookup("heap").WriteTo(mem.tmp, 0))
			runtime.MemProfileRate = oldRate
		}
		for _, o := range outs {
			if err := o.commit(); err != nil {
				keep(fmt.Errorf("--%s: %v", o.flag, err))
			}
		}
		return first
	}, nil
}
