package cli

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"sardonics/topology"
)

func init() {
	register(&Command{
		Name:  "version",
		Usage: "",
		Short: "the build (module version, VCS revision and time, Go) and the CPU features the engines use",
		Long: `Prints the module version, the VCS revision and its time (from the build
information Go records), the Go version, the machine, and the CPU features the
engines choose kernels by at run time: AVX2 for the dense RBM engines' row
update (else the Go loop), SSE2 for the bucket engine's kernels (every
amd64 CPU has it). sardonics --version prints the same.`,
		Flags: func(fs *flag.FlagSet, env *Env) func([]string) error {
			return func(args []string) error {
				if len(args) > 0 {
					return usagef("version: unexpected argument %q", args[0])
				}
				writeVersion(env.Stdout)
				return nil
			}
		},
	})
}

// writeVersion prints what `sardonics version` prints.
func writeVersion(w io.Writer) {
	version, rev, when, dirty := "(devel)", "unknown", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	fmt.Fprintf(w, "sardonics %s\nrevision  %s%s\ntime      %s\ngo        %s %s/%s\nmachine   %s\n",
		version, rev, dirty, when, runtime.Version(), runtime.GOOS, runtime.GOARCH, topology.Describe())
	var used []string
	for _, f := range []struct {
		id   cpuid.FeatureID
		name string
		use  string
	}{
		{cpuid.SSE2, "SSE2", "bucket engine kernels"},
		{cpuid.AVX2, "AVX2", "dense RBM row update"},
	} {
		state := "absent: Go code instead"
		if cpuid.CPU.Supports(f.id) {
			state = "present"
		}
		used = append(used, fmt.Sprintf("%s (%s): %s", f.name, f.use, state))
	}
	if runtime.GOARCH != "amd64" {
		used = []string{"none: the portable Go code runs on " + runtime.GOARCH}
	}
	fmt.Fprintf(w, "cpu       %s\n", strings.Join(used, "; "))
}
