package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sardonics/atomicfile"
	"sardonics/model"
	"sardonics/replica"
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
	// canonical order, --init as the SHA-256 of the file's content, and
	// the model's file and --policy by canonical path (canonicalSpec), so
	// that m.txt, ./m.txt and /abs/m.txt are one command.
	Settings map[string]string `json:"settings"`
	// Inputs are the files the run read, by flag (model, init, policy):
	// the trials are only valid for the content they had. Files of older
	// versions lack them.
	Inputs map[string]inputFile `json:"inputs"`
	// Dir is the working directory the run started in, which the relative
	// paths of Args are relative to.
	Dir string `json:"dir"`
	// ReplicasAuto is the replica count --replicas auto chose, and why: a
	// later run of the same command into DIR (--resume) takes it rather
	// than running the pilot again.
	ReplicasAuto *replica.AutoRungs `json:"replicas_auto,omitempty"`
}

// inputFile is a file a run read.
type inputFile struct {
	Path   string `json:"path"`   // canonical: absolute, symbolic links resolved
	SHA256 string `json:"sha256"` // "sha256:HEX"
}

// canonicalPath is path absolute (a relative one taken from dir, ""
// the working directory) with its symbolic links resolved (resolvePath):
// one file has one name, however a command spelled it or whichever
// directory it ran in.
func canonicalPath(path, dir string) string {
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	return resolvePath(path)
}

// canonicalSpec is a --model spec with the path of its file canonical
// (rbm:PATH keeps its prefix); a generator's spec is left as it is.
func canonicalSpec(spec, dir string) string {
	p := model.File(spec)
	if p == "" {
		return spec
	}
	if strings.HasPrefix(spec, "rbm:") {
		return "rbm:" + canonicalPath(p, dir)
	}
	return canonicalPath(p, dir)
}

// canonicalSetting is the value of flag k as Settings records it: the
// model's and --policy's files by canonical path.
func canonicalSetting(k, v, dir string) string {
	switch {
	case k == "model":
		return canonicalSpec(v, dir)
	case k == "policy" && v != "":
		return canonicalPath(v, dir)
	}
	return v
}

// notCompared are the flags that do not change a run's results: a run into
// a folder may differ from its command in these (they are still kept in
// Args for --resume).
var notCompared = map[string]bool{
	"resume": true, "quiet": true, "checkpoint-every": true, "threads": true, "out": true,
	"no-figures": true, "cpuprofile": true, "memprofile": true, "trace": true,
}

// inputFlags are the flags that name files the run reads.
var inputFlags = []string{"model", "init", "policy"}

// inputPath is the file that flag k's value v names, "" if none: the
// model's file (model.File: rbm:PATH, or a name with the extension of a
// model file), or the path given to --init or --policy.
func inputPath(k, v string) string {
	if k != "model" {
		return v
	}
	return model.File(v)
}

// normalizeCommand is the Settings and Inputs of a parsed sample command
// line.
func normalizeCommand(fs *flag.FlagSet) (map[string]string, map[string]inputFile, error) {
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
	inputs := map[string]inputFile{}
	for _, k := range inputFlags {
		p := inputPath(k, set[k])
		if p == "" {
			continue
		}
		h, err := fileSHA256(p)
		if err != nil {
			return nil, nil, usagef("--%s %s: %v", k, p, err)
		}
		inputs[k] = inputFile{Path: canonicalPath(p, ""), SHA256: h}
		set[k] = canonicalSetting(k, set[k], "")
	}
	if f, ok := inputs["init"]; ok {
		set["init"] = f.SHA256
	}
	return set, inputs, nil
}

// canonicalize rewrites the file paths of a command.json written before
// they were canonical (relative as given, relative to c.Dir; absolute
// but with symbolic links), so that it compares equal to the same command
// now.
func (c *commandFile) canonicalize() {
	for k, f := range c.Inputs {
		f.Path = canonicalPath(f.Path, c.Dir)
		c.Inputs[k] = f
	}
	for _, k := range []string{"model", "policy"} {
		if v, ok := c.Settings[k]; ok {
			c.Settings[k] = canonicalSetting(k, v, c.Dir)
		}
	}
}

// fileSHA256 is "sha256:HEX" of the content of path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("cannot read: %v", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("cannot read: %v", err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// parseSampleArgs parses args as sample's flags.
func parseSampleArgs(args []string) (*flag.FlagSet, error) {
	fs, _, _ := newFlagSet(commands["sample"], &Env{Stdout: io.Discard, Stderr: io.Discard})
	return fs, fs.Parse(args)
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
		fs, err := parseSampleArgs(args)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		set, _, err := normalizeCommand(fs)
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
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("%s: not a command.json written by sardonics sample (%v)", path, err)
	}
	if c.Settings == nil {
		return nil, fmt.Errorf("%s: not a command.json written by sardonics sample (it has no \"settings\")", path)
	}
	c.canonicalize()
	return c, nil
}

// diffCommands lists the settings in which the command there (stored in
// DIR) and now differ, one "name: THERE (there) vs NOW (now)" line each, in
// the order of the flag names, then the input files whose content differs.
// A setting one side lacks (a flag of another version of sardonics) counts
// as its default. changed is true when every line is a file changed in
// place: the same command, run on files edited since.
func diffCommands(there, now *commandFile, fs *flag.FlagSet) (lines []string, changed bool) {
	var keys []string
	for k := range now.Settings {
		keys = append(keys, k)
	}
	for k := range there.Settings {
		if _, ok := now.Settings[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	files := inputDiff(there.Inputs, now.Inputs)
	for _, k := range keys {
		a, okA := there.Settings[k]
		b, okB := now.Settings[k]
		if f := fs.Lookup(k); f != nil && k != "beta" && k != "sampler" && k != "init" {
			if !okA {
				a = f.DefValue
			}
			if !okB {
				b = f.DefValue
			}
		}
		if _, said := files[k]; a != b && !said {
			lines = append(lines, fmt.Sprintf("%s: %s (there) vs %s (now)", k, showSetting(k, a), showSetting(k, b)))
		}
	}
	changed = len(lines) == 0
	for _, k := range inputFlags {
		if l, ok := files[k]; ok {
			lines = append(lines, l)
			changed = changed && there.Inputs[k].Path == now.Inputs[k].Path
		}
	}
	return lines, changed && len(lines) > 0
}

// inputDiff is a line for each flag whose file has another content there
// (the run in DIR) than now, whether the file changed or another is named;
// files only one side records are not compared (their settings are).
func inputDiff(there, now map[string]inputFile) map[string]string {
	out := map[string]string{}
	for k, b := range now {
		a, ok := there[k]
		switch {
		case !ok || a.SHA256 == b.SHA256:
		case a.Path == b.Path:
			out[k] = fmt.Sprintf("--%s %s changed: sha256 %s (there) vs %s (now)", k, b.Path, shortHash(a.SHA256), shortHash(b.SHA256))
		default:
			out[k] = fmt.Sprintf("--%s: %s, sha256 %s (there) vs %s, sha256 %s (now)", k, a.Path, shortHash(a.SHA256), b.Path, shortHash(b.SHA256))
		}
	}
	return out
}

func showSetting(k, v string) string {
	switch {
	case k == "init" && v == "":
		return "random"
	case k == "init":
		return "a file of sha256 " + shortHash(v)
	case v == "":
		return `""`
	}
	return v
}

// shortHash is the first 12 hex digits of a "sha256:HEX" value.
func shortHash(v string) string {
	h := strings.TrimPrefix(v, "sha256:")
	return h[:min(12, len(h))]
}

// savedAuto is the replica count that dir/command.json records as chosen
// by --replicas auto for the command parsed into fs (nil: none recorded,
// or for another command).
func savedAuto(fs *flag.FlagSet, dir string) (*replica.AutoRungs, error) {
	old, err := readCommand(filepath.Join(dir, "command.json"))
	if err != nil || old.ReplicasAuto == nil {
		return nil, nil // an unreadable file is saveCommand's to refuse
	}
	set, inputs, err := normalizeCommand(fs)
	if err != nil {
		return nil, err
	}
	if diff, _ := diffCommands(old, &commandFile{Settings: set, Inputs: inputs}, fs); len(diff) > 0 {
		return nil, nil
	}
	a := old.ReplicasAuto
	if a.Rungs < 2 || a.Rungs > replica.MaxRungs {
		return nil, usagef("%s: replicas_auto.rungs %d (expected 2 to %d); delete the folder to run anew", filepath.Join(dir, "command.json"), a.Rungs, replica.MaxRungs)
	}
	return a, nil
}

// savedCommand is the command of a run about to start in dir.
type savedCommand struct {
	path   string
	inputs map[string]inputFile // the files the run reads, by flag
}

// settings is what the run's identity (summary.Meta.Settings) adds for its
// inputs: the content of the --init file, of the model's file and of the
// --policy file, so that `report` does not merge runs started from
// different states or run on files edited in between (their paths are in
// Meta.Spec and the policy= setting, canonical).
func (s *savedCommand) settings() string {
	var b strings.Builder
	for _, k := range inputFlags {
		f, ok := s.inputs[k]
		switch {
		case !ok:
		case k == "init":
			b.WriteString(" init=" + f.SHA256)
		default:
			b.WriteString(" " + k + "-file=" + f.SHA256)
		}
	}
	return b.String()
}

// saveCommand records the sample command parsed into fs in DIR/command.json,
// so that --resume DIR can repeat it. Call it once every flag is checked
// and the model loaded, just before the run starts.
//
// Finished trials and checkpoints in dir are reused (that is how --resume
// works), so a folder holding the results of another command is refused
// with what differs, and so is one whose trials were run on input files
// that have changed since (those trials would be silently wrong); an
// equivalent command (another spelling of beta, the samplers in another
// order, input files of the same content elsewhere, other settings of what
// does not change results) is accepted and told how many finished trials it
// reuses. A folder whose run left nothing to reuse (it failed before its
// first trial finished) is free for any command.
func saveCommand(fs *flag.FlagSet, cfg *runner.Config, dir string, env *Env) (*savedCommand, error) {
	set, inputs, err := normalizeCommand(fs)
	if err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	now := &commandFile{Settings: set, Inputs: inputs, Dir: wd, ReplicasAuto: cfg.Replicas.Auto}
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" {
			now.Args = append(now.Args, "--"+f.Name+"="+f.Value.String())
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
	case !runner.HoldsResults(dir):
	default:
		diff, changed := diffCommands(old, now, fs)
		if changed {
			return nil, usagef("--out %s holds trials of this command run on other contents of its input files:\n  %s\nthose trials would be wrong for the files as they are now: choose another --out, restore the files, or delete %s to run anew",
				dir, indented(diff), dir)
		}
		if len(diff) > 0 {
			return nil, usagef("--out %s holds a run of another command:\n  %s\nchoose another --out, delete %s, or continue that run with: %s",
				dir, indented(diff), dir, resumeHint("sample", dir))
		}
	}
	if n := runner.FinishedTrials(dir, cfg.Samplers, cfg.TrialOffset, cfg.Trials); n > 0 {
		fmt.Fprintf(env.Stderr, "sardonics: reusing %s from %s (of %d in this run)\n", plural(n, "finished trial"), dir, len(cfg.Samplers)*cfg.Trials)
	}
	b, err := json.MarshalIndent(now, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFileMkdir(path, append(b, '\n')); err != nil {
		return nil, err
	}
	return &savedCommand{path: path, inputs: inputs}, nil
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

// resumeHint is the command line that continues the run of cmd (sample,
// paper) in dir: "sardonics sample --resume DIR", DIR absolute so that it
// works from any directory, and quoted for a POSIX shell if it must be.
func resumeHint(cmd, dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if dir == "" || strings.ContainsAny(dir, " \t\n'\"\\$`*?[]{}()<>;&|!#~") {
		dir = "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	}
	return "sardonics " + cmd + " --resume " + dir
}

// resumeSample reruns the command saved in dir; finished trials are kept,
// checkpointed ones continue where they stopped. The input files must be
// those the run read: checked here, before a checkpoint of other inputs is
// restored into a chain that does not fit it.
func resumeSample(fs *flag.FlagSet, dir string, env *Env) error {
	// Flags that do not change the results may be given again: the core
	// count of the machine the run continues on, how often to checkpoint.
	var extra []string
	override := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "resume", "quiet":
		case "threads", "checkpoint-every":
			override[f.Name] = f.Value.String()
		default:
			extra = append(extra, f.Name)
		}
	})
	path := filepath.Join(dir, "command.json")
	if len(extra) > 0 {
		return usagef("--resume takes the original flags from %s; do not give --%s (only --threads, --checkpoint-every and --quiet may change)", path, extra[0])
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("--resume %s: no such folder (expected the --out folder of an interrupted sample run)", dir)
	}
	c, err := readCommand(path)
	if errors.Is(err, os.ErrNotExist) {
		return usagef("--resume %s: the folder has no command.json, so it is not the output of sardonics sample (expected the --out folder of an interrupted sample run)", dir)
	}
	if err != nil {
		return usagef("--resume %s: %v; expected the --out folder of an interrupted sample run", dir, err)
	}
	for _, k := range inputFlags {
		f, ok := c.Inputs[k]
		if !ok {
			continue
		}
		h, err := fileSHA256(f.Path)
		if err != nil {
			return usagef("--resume %s: --%s %s, which the run read: %v; restore it to continue", dir, k, f.Path, err)
		}
		if h != f.SHA256 {
			return usagef("--resume %s: --%s %s changed since the run started (sha256 %s then, %s now); restore it to continue, or start a new run into another --out",
				dir, k, f.Path, shortHash(f.SHA256), shortHash(h))
		}
	}
	// The folder is where it is now (it may have moved, or --out been
	// relative), and the other relative paths mean what they meant when
	// the run started: the command runs again in the directory it ran in
	// (the files it names are compared by canonical path, wherever run).
	args := slices.DeleteFunc(slices.Clone(c.Args), func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		_, over := override[name]
		return name == "out" || over
	})
	for _, k := range slices.Sorted(maps.Keys(override)) {
		args = append(args, "--"+k+"="+override[k])
	}
	if wd, err := os.Getwd(); err == nil && c.Dir != "" && c.Dir != wd {
		if dir, err = filepath.Abs(dir); err != nil {
			return err
		}
		if _, err := os.Stat(c.Dir); err != nil {
			return usagef("--resume %s: the run started in %s, which the relative paths of %s are relative to, and that directory is gone; recreate it, or start a new run", dir, c.Dir, path)
		}
		if err := os.Chdir(c.Dir); err != nil {
			return err
		}
		defer os.Chdir(wd)
	}
	args = append(args, "--out="+dir)
	if q := fs.Lookup("quiet"); q != nil && q.Value.String() == "true" {
		args = append(args, "--quiet")
	}
	return Run(append([]string{"sample"}, args...), env.Stdout, env.Stderr)
}

// statesWarnBytes is the --save-states output above which sample says how
// much it will write before it starts.
var statesWarnBytes = 1e9

// statesSize is what --save-states will write in a run of cfg: per trial
// folder a states.npy of its saved rows (one in --save-every of the steps
// after the burn-in) of one byte per variable, and a samples.npz of its
// distinct rows, at most as many, of one bit per variable with an energy
// and a count each; held is what a running trial keeps of them in memory.
func statesSize(cfg *runner.Config) (total, perTrial, held float64) {
	if !cfg.SaveStates {
		return 0, 0, 0
	}
	const header = 128 // model.NPYHeader pads to 64 bytes; a shape fits in 128
	rows, n := float64(cfg.SavedStates()), float64(cfg.Model.Variables())
	held = rows * n
	perTrial = held + header + rows*(math.Ceil(n/8)+16) + 4*header + 512 // samples.npz: packed bits, the zip's headers and directory
	return perTrial * float64(cfg.Trials) * float64(len(cfg.Samplers)), perTrial, held
}

// statesNote is the line sample prints before a run whose --save-states
// output exceeds statesWarnBytes, or "".
func statesNote(cfg *runner.Config) string {
	total, per, held := statesSize(cfg)
	if total <= statesWarnBytes {
		return ""
	}
	hint := ""
	if cfg.SaveEvery <= 1 {
		hint = "; --save-every K keeps one state in K"
	}
	return fmt.Sprintf("sardonics: --save-states will write about %s (%s x %s x %s: states.npy, and samples.npz of its distinct states, at most an eighth as large; each running trial holds its %s of states in memory%s)\n",
		humanBytes(total), plural(len(cfg.Samplers), "sampler"), plural(cfg.Trials, "trial"), humanBytes(per), humanBytes(held), hint)
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
