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
	"sardonics/sampler"
	_ "sardonics/samplers" // every sampler, registered
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
	var re *sampler.UsageError
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
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// Asked for: the usage is the output, on stdout, exit 0.
			fs.SetOutput(stdout)
			fs.Usage()
			return nil
		}
		// The error and where to look, not the whole usage.
		return usagef("%s: %v\nrun 'sardonics help %s' (or 'sardonics %s -h') for the flags", name, flagError(fs, err), name, name)
	}
	stop, err := prof.Start()
	if err != nil {
		return usagef("%s: %v", name, err)
	}
	err = run(pos)
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	return err
}

// parseInterspersed parses args into fs, flags and positional arguments in
// any order (report DIR --out MERGED as report --out MERGED DIR); "--" ends
// the flags. It returns the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// Parse stopped at "--" (which it consumes) or at a positional.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError is a parse error of fs as the user should read it: an unknown
// flag (the flag package's "flag provided but not defined: -NAME") is
// "unknown flag --NAME", with the command's nearest flags suggested.
func flagError(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	msg := "unknown flag --" + name
	if near := nearFlags(fs, name); len(near) > 0 {
		msg += " (did you mean --" + strings.Join(near, " or --") + "?)"
	}
	return errors.New(msg)
}

// nearFlags are fs's flags that name may be a misspelling of, sorted, at
// most 3. Case aside, the first group that is not empty: those at edit
// distance 0 or 1 (--step: --steps); those name is a prefix of (--save:
// --save-every, --save-states) or that are a prefix of name (--stepsize:
// --steps), 2 letters or more; those at distance 2. A distance must be
// less than name's length (--x suggests nothing).
func nearFlags(fs *flag.FlagSet, name string) []string {
	low := strings.ToLower(name)
	var groups [3][]string // distance <= 1, prefix, distance 2
	fs.VisitAll(func(f *flag.Flag) {
		n := strings.ToLower(f.Name)
		d := levenshtein(low, n)
		switch {
		case d <= 1 && d < len([]rune(low)):
			groups[0] = append(groups[0], f.Name)
		case len(low) >= 2 && strings.HasPrefix(n, low) || len(n) >= 2 && strings.HasPrefix(low, n):
			groups[1] = append(groups[1], f.Name)
		case d == 2 && d < len([]rune(low)):
			groups[2] = append(groups[2], f.Name)
		}
	})
	for _, g := range groups {
		if len(g) > 0 {
			sort.Strings(g)
			return g[:min(3, len(g))]
		}
	}
	return nil
}

// levenshtein is the edit distance of a and b: the fewest insertions,
// deletions and substitutions of runes that turn one into the other.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func newFlagSet(c *Command, env *Env) (*flag.FlagSet, func([]string) error, *pprof.Flags) {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	// Parse errors are returned, not printed with the whole usage (Run
	// prints the error and a pointer to -h; -h prints the usage on stdout).
	fs.SetOutput(io.Discard)
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

// modelUsage is the help text of sample's --model: every form model.Load
// accepts, from model.SpecForms.
func modelUsage() string {
	var b strings.Builder
	b.WriteString("model `SPEC`, one of:")
	for _, f := range model.SpecForms {
		if len(f.Form) > 30 { // the description on a line of its own
			fmt.Fprintf(&b, "\n  %s\n  %30s", f.Form, "")
		} else {
			fmt.Fprintf(&b, "\n  %-30s", f.Form)
		}
		fmt.Fprintf(&b, " %s", f.What)
	}
	b.WriteString("\n(docs/formats.md describes the files)")
	return b.String()
}

// plural is "1 trial", "2 trials".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
