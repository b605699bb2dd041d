package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"syscall"

	"sardonics/model"
	"sardonics/pprof"
	"sardonics/runner"
)

// Command is one subcommand.
type Command struct {
	Name  string
	Usage string // one line: arguments
	Short string
	Long  string
	// Flags registers the command's flags and returns the function that runs
	// it with the remaining arguments.
	Flags func(fs *flag.FlagSet, env *Env) func(args []string) error
}

// Env is what a command may touch.
type Env struct {
	Stdout, Stderr io.Writer
	Quiet          bool
}

// UsageError is a command-line mistake (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// ExitCode maps an error to the process exit status: 2 for usage and input
// errors, 1 for everything else.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ie2 *InterruptedError
	if errors.As(err, &ie2) {
		if s, ok := ie2.Signal.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 130
	}
	var ue *UsageError
	var re *runner.UsageError
	var ie *model.InputError
	if errors.As(err, &ue) || errors.As(err, &re) || errors.As(err, &ie) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

var commands = map[string]*Command{}

func register(c *Command) { commands[c.Name] = c }

// Run runs sardonics with args (without the program name).
func Run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printUsage(stderr)
		return usagef("no subcommand given")
	}
	name := args[0]
	if name == "--version" || name == "-version" {
		writeVersion(stdout)
		return nil
	}
	if name == "help" || name == "-h" || name == "--help" {
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				return usagef("help: unknown subcommand %q (expected one of %s)", args[1], names())
			}
			fs, _, _ := newFlagSet(c, &Env{Stdout: stdout, Stderr: stdout})
			fs.SetOutput(stdout)
			fs.Usage()
			return nil
		}
		printUsage(stdout)
		return nil
	}
	c, ok := commands[name]
	if !ok {
		printUsage(stderr)
		return usagef("unknown subcommand %q (expected one of %s)", name, names())
	}
	env := &Env{Stdout: stdout, Stderr: stderr}
	fs, run, prof := newFlagSet(c, env)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usagef("%s: %v", name, err)
	}
	stop, err := prof.Start()
	if err != nil {
		return err
	}
	err = run(fs.Args())
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	return err
}

func newFlagSet(c *Command, env *Env) (*flag.FlagSet, func([]string) error, *pprof.Flags) {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	run := c.Flags(fs, env)
	prof := &pprof.Flags{}
	prof.Register(fs)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: sardonics %s %s\n\n%s\n\n", c.Name, c.Usage, strings.TrimSpace(c.Long))
		fmt.Fprintf(w, "flags:\n")
		fs.PrintDefaults()
	}
	return fs, run, prof
}

func names() string {
	var n []string
	for k := range commands {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "sardonics samples binary models (Ising, QUBO, RBM) with self-avoiding-walk MCMC.\n\nusage: sardonics SUBCOMMAND [flags]\n\nsubcommands:\n")
	var n []string
	for k := range commands {
		n = append(n, k)
	}
	sort.Strings(n)
	for _, k := range n {
		fmt.Fprintf(w, "  %-10s %s\n", k, commands[k].Short)
	}
	fmt.Fprintf(w, "\n'sardonics help SUBCOMMAND' documents every flag.\n")
}
