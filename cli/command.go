package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sardonics/runner"
)

// commandFile is DIR/command.json, the command of the sample run whose
// trials and checkpoints DIR holds.
type commandFile struct {
	// Args are the flags as given (but --resume), which --resume repeats.
	Args []string `json:"args"`
	// Settings is the command compared with a later run into DIR: every
	// flag that changes the results, defaults made explicit, beta as a
	// number whichever of --T and --beta was given, the samplers in
	// canonical order and --init as the SHA-256 of the file's content.
	Settings map[string]string `json:"settings"`
}

// notCompared are the flags that do not change a run's results: a run into
// a folder may differ from its command in these (they are still kept in
// Args for --resume).
var notCompared = map[string]bool{
	"resume": true, "quiet": true, "checkpoint-every": true, "threads": true, "out": true,
	"no-figures": true, "cpuprofile": true, "memprofile": true, "trace": true,
}

// normalizeCommand is the Settings of a parsed sample command line.
func normalizeCommand(fs *flag.FlagSet) (map[string]string, error) {
	set := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if !notCompared[f.Name] {
			set[f.Name] = f.Value.String()
		}
	})
	t, _ := strconv.ParseFloat(set["T"], 64)
	b, _ := strconv.ParseFloat(set["beta"], 64)
	if t != 0 {
		b = 1 / t
	}
	delete(set, "T")
	set["beta"] = strconv.FormatFloat(b, 'g', -1, 64)
	if names, err := runner.ParseSamplers(set["sampler"], nil); err == nil {
		set["sampler"] = strings.Join(names, ",")
	}
	if p := set["init"]; p != "" {
		h, err := fileSHA256(p)
		if err != nil {
			return nil, usagef("--init: %v", err)
		}
		set["init"] = h
	}
	return set, nil
}

// fileSHA256 is "sha256:HEX" of the content of path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// readCommand reads DIR/command.json. A file of the first format (a bare
// list of flags) is normalized by parsing its flags again.
func readCommand(path string) (*commandFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var args []string
	if json.Unmarshal(b, &args) == nil {
		fs, _, _ := newFlagSet(commands["sample"], &Env{Stdout: io.Discard, Stderr: io.Discard})
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		set, err := normalizeCommand(fs)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "burn" })
		if !given {
			set["burn"] = "20000" // the default --burn of the versions that wrote this format
		}
		return &commandFile{Args: args, Settings: set}, nil
	}
	c := &commandFile{}
	if err := json.Unmarshal(b, c); err != nil || c.Settings == nil {
		return nil, fmt.Errorf("%s: not a command.json written by sardonics sample (%v)", path, err)
	}
	return c, nil
}

// diffCommands lists the settings in which the command there (stored in
// DIR) and now differ, one "name: THERE (there) vs NOW (now)" line each, in
// the order of the flag names. A setting one side lacks (a flag of another
// version of sardonics) counts as its default.
func diffCommands(there, now map[string]string, fs *flag.FlagSet) []string {
	var keys []string
	for k := range now {
		keys = append(keys, k)
	}
	for k := range there {
		if _, ok := now[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		a, okA := there[k]
		b, okB := now[k]
		if f := fs.Lookup(k); f != nil && k != "beta" && k != "sampler" && k != "init" {
			if !okA {
				a = f.DefValue
			}
			if !okB {
				b = f.DefValue
			}
		}
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s (there) vs %s (now)", k, showSetting(k, a), showSetting(k, b)))
		}
	}
	return out
}

func showSetting(k, v string) string {
	switch {
	case k == "init" && v == "":
		return "random"
	case k == "init":
		h := strings.TrimPrefix(v, "sha256:")
		return "a file of sha256 " + h[:min(12, len(h))]
	case v == "":
		return `""`
	}
	return v
}

// savedCommand is the command of a run about to start in dir.
type savedCommand struct {
	path string
}

// saveCommand records the sample command parsed into fs in DIR/command.json,
// so that --resume DIR can repeat it. Call it once every flag is checked
// and the model loaded, just before the run starts.
//
// Finished trials and checkpoints in dir are reused (that is how --resume
// works), so a folder holding the results of another command is refused
// with what differs; an equivalent command (another spelling of beta, the
// samplers in another order, other settings of what does not change results)
// is accepted and told how many finished trials it reuses. A folder whose
// run left nothing to reuse (it failed before its first trial finished) is
// free for any command.
func saveCommand(fs *flag.FlagSet, cfg *runner.Config, dir string, env *Env) (*savedCommand, error) {
	set, err := normalizeCommand(fs)
	if err != nil {
		return nil, err
	}
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	path := filepath.Join(dir, "command.json")
	old, err := readCommand(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		if runner.HoldsResults(dir) {
			return nil, usagef("--out %s holds the results of a run whose command cannot be read (%v); choose another --out or delete %s", dir, err, dir)
		}
	default:
		if diff := diffCommands(old.Settings, set, fs); len(diff) > 0 && runner.HoldsResults(dir) {
			return nil, usagef("--out %s holds a run of another command:\n  %s\nchoose another --out, delete %s, or continue that run with: sardonics sample --resume %s",
				dir, strings.Join(diff, "\n  "), dir, dir)
		}
	}
	if n := runner.FinishedTrials(dir, cfg.Samplers, cfg.TrialOffset, cfg.Trials); n > 0 {
		fmt.Fprintf(env.Stderr, "sardonics: reusing %s from %s (of %d in this run)\n", plural(n, "finished trial"), dir, len(cfg.Samplers)*cfg.Trials)
	}
	b, err := json.MarshalIndent(&commandFile{Args: args, Settings: set}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := runner.WriteFileAtomic(path, append(b, '\n')); err != nil {
		return nil, err
	}
	return &savedCommand{path: path}, nil
}

// finish passes on the run's error. A run that failed (rather than being
// interrupted) without leaving anything to reuse also takes its
// command.json away, so that the corrected command may use the folder.
func (c *savedCommand) finish(err error) error {
	var ie *InterruptedError
	if err != nil && !errors.As(err, &ie) && !runner.HoldsResults(filepath.Dir(c.path)) {
		os.Remove(c.path)
	}
	return err
}

// resumeSample reruns the command saved in dir; finished trials are kept,
// checkpointed ones continue where they stopped.
func resumeSample(fs *flag.FlagSet, dir string, env *Env) error {
	var extra []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" && f.Name != "quiet" {
			extra = append(extra, f.Name)
		}
	})
	path := filepath.Join(dir, "command.json")
	if len(extra) > 0 {
		return usagef("--resume takes the original flags from %s; do not give --%s", path, extra[0])
	}
	c, err := readCommand(path)
	if err != nil {
		return usagef("--resume %s: %v (expected the output folder of an interrupted sample run)", dir, err)
	}
	if h := c.Settings["init"]; h != "" {
		var file string
		for _, a := range c.Args {
			if v, ok := strings.CutPrefix(a, "--init="); ok {
				file = v
			}
		}
		now, err := fileSHA256(file)
		if err != nil {
			return usagef("--resume %s: the run started from --init %s: %v", dir, file, err)
		}
		if now != h {
			return usagef("--resume %s: --init %s changed since the run started (%s then, %s now); restore it to continue, or start a new run",
				dir, file, showSetting("init", h), showSetting("init", now))
		}
	}
	args := c.Args
	if q := fs.Lookup("quiet"); q != nil && q.Value.String() == "true" {
		args = append(args, "--quiet")
	}
	return Run(append([]string{"sample"}, args...), env.Stdout, env.Stderr)
}

// statesWarnBytes is the --save-states output above which sample says how
// much it will write before it starts.
var statesWarnBytes = 1e9

// statesSize is what --save-states will write in a run of cfg: per trial
// folder a states.npy of (steps - burn) rows of one byte per variable.
func statesSize(cfg *runner.Config) (total, perTrial float64) {
	if !cfg.SaveStates {
		return 0, 0
	}
	const header = 128 // model.NPYHeader pads to 64 bytes; a shape fits in 128
	perTrial = float64(cfg.Steps-cfg.Burn)*float64(cfg.Model.Variables()) + header
	return perTrial * float64(cfg.Trials) * float64(len(cfg.Samplers)), perTrial
}

// statesNote is the line sample prints before a run whose --save-states
// output exceeds statesWarnBytes, or "".
func statesNote(cfg *runner.Config) string {
	total, per := statesSize(cfg)
	if total <= statesWarnBytes {
		return ""
	}
	return fmt.Sprintf("sardonics: --save-states will write about %s (%s x %s x %s; each running trial holds its %s in memory)\n",
		humanBytes(total), plural(len(cfg.Samplers), "sampler"), plural(cfg.Trials, "trial"), humanBytes(per), humanBytes(per))
}

// humanBytes writes a byte count with an SI unit: 950 B, 1.5 kB, 4.2 GB.
func humanBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 999.95 && i < len(units)-1 {
		b /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// indented joins lines for a message that lists them under its first line.
func indented(lines []string) string { return strings.Join(lines, "\n  ") }

// outsideInput refuses a report --out that is the input folder in, or
// inside it: the merged summary.json would replace the input's own.
func outsideInput(out, in string) error {
	o, i := resolvePath(out), resolvePath(in)
	if rel, err := filepath.Rel(i, o); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		what := "is the input folder " + in
		if rel != "." {
			what = "is inside the input folder " + in
		}
		return usagef("report: --out %s %s, whose summary.json and trial folders it would overwrite; give a new folder for --out", out, what)
	}
	return nil
}

// resolvePath is path made absolute, with the symbolic links of its
// longest existing prefix resolved.
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}
