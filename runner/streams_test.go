package runner

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"sardonics/internal/golden"
)

// The streams a run's trials draw from are pinned (UPDATE_STREAMS=1 go
// test ./runner -run TestGoldenStreamFor rewrites testdata/streams.txt):
// StreamFor by sampler name, the tuner's, and the shared random start. A
// change here changes every trace of every seed (rng's own streams are
// pinned in package rng).
func TestGoldenStreamFor(t *testing.T) {
	var b strings.Builder
	for _, seed := range []uint64{1, 12345} {
		for tr := range 3 {
			for _, name := range []string{"sardonics", "gibbs", "metropolis", "sw", "blockgibbs", "hybrid"} {
				p := StreamFor(seed, tr, name)
				fmt.Fprintf(&b, "StreamFor(%d, %d, %s): %#x %#x\n", seed, tr, name, p.Uint64(), p.Uint64())
			}
			q := TunerStream(seed, tr)
			fmt.Fprintf(&b, "TunerStream(%d, %d): %#x\n", seed, tr, q.Uint64())
			fmt.Fprintf(&b, "InitialState(%d, %d, 24): %v\n", seed, tr, InitialState(seed, tr, 24))
		}
	}
	golden.Check(t, "testdata/streams.txt", b.String(), os.Getenv("UPDATE_STREAMS") != "", "UPDATE_STREAMS=1 go test ./runner -run TestGoldenStreamFor")
}
