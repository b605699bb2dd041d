package model

import "fmt"

// InputError is a problem with user input: a model file, an .npz archive or
// a --model spec. Msg says what is wrong and, in parentheses, what was
// expected. File is "--model" for spec problems; Line is 1-based, or 0 when
// the problem has no line (binary files, specs).
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func inputErr(file string, line int, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Size limits. They keep a hostile header (a count line of 10^12, an .npy
// shape of 10^9 x 10^9) from allocating memory before the body is checked.
const (
	MaxVariables  = 1 << 22 // most variables of any model (4 194 304)
	MaxRBMWeights = 1 << 26 // most entries of an RBM's W
	maxLineLength = 1 << 20 // longest line of a text file
	defaultSeed   = 1       // generator seed when a spec omits seed=
)
