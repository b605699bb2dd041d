// Package state encodes a chain's or an engine's state as bytes for a
// checkpoint: a Writer appends fixed-width little-endian values and
// length-prefixed slices, a Reader reads them back in the same order and
// remembers the first error (a short buffer or a slice of the wrong
// length), so a decoder checks Err once at the end.
package state
