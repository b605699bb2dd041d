// Package atomicfile writes files atomically: to a temporary file beside
// the destination, synced, then renamed into place, so that a reader (or
// a run resumed after a crash) never sees a partial file. Every output of
// the program is written through it.
package atomicfile
