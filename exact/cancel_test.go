package exact

import (
	"context"
	"errors"
	"testing"
	"time"

	"sardonics/model"
)

// TestEnumerateCancel: a 30-variable enumeration (seconds of work) is
// abandoned within a second of its context's end, and an RBM's too.
func TestEnumerateCancel(t *testing.T) {
	for _, spec := range []string{"chimera:M=3,N=5,T=1,seed=1", "rbm-random:V=30,H=400,seed=1,scale=0.1"} {
		m, err := model.Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		res, err := EnumerateContext(ctx, m, 1)
		cancel()
		limit := time.Second
		if raceEnabled {
			limit *= 10 // the detector slows every check of the flag
		}
		if took := time.Since(start); took > limit {
			t.Errorf("%s: stopped %v after the context ended", spec, took)
		}
		if res != nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: result %v, error %v (expected none and the context's error)", spec, res, err)
		}
	}
}
