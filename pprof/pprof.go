package pprof

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pkg/profile"
)

// Flags are the profiling flags of one subcommand.
type Flags struct {
	CPU, Mem, Trace string
}

// Register adds --cpuprofile, --memprofile and --trace to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.CPU, "cpuprofile", "", "write a CPU profile to `FILE` (read it with go tool pprof)")
	fs.StringVar(&f.Mem, "memprofile", "", "write a heap profile to `FILE` when the command ends")
	fs.StringVar(&f.Trace, "trace", "", "write an execution trace to `FILE` (go tool trace)")
}

// Start starts the requested profiles; the returned function stops them and
// moves each file to the path asked for. pkg/profile allows one profile at
// a time, so CPU wins over trace over memory when several are asked for.
func (f *Flags) Start() (stop func() error, err error) {
	var mode func(*profile.Profile)
	var name, dst string
	switch {
	case f.CPU != "":
		mode, name, dst = profile.CPUProfile, "cpu.pprof", f.CPU
	case f.Trace != "":
		mode, name, dst = profile.TraceProfile, "trace.out", f.Trace
	case f.Mem != "":
		mode, name, dst = profile.MemProfile, "mem.pprof", f.Mem
	default:
		return func() error { return nil }, nil
	}
	dir, err := os.MkdirTemp(filepath.Dir(dst), ".profile")
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	p := profile.Start(mode, profile.ProfilePath(dir), profile.Quiet, profile.NoShutdownHook)
	return func() error {
		p.Stop()
		defer os.RemoveAll(dir)
		return os.Rename(filepath.Join(dir, name), dst)
	}, nil
}
