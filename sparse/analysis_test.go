package sparse

import (
	"runtime"
	"sync"
	"testing"
)

// TestAnalysisShared checks that bucket engines on one model share its
// analysis (built once, read-only) and that engines on another model with
// the same shape do not.
func TestAnalysisShared(t *testing.T) {
	m := frustrated2d(t)
	engines := make([]*Bucket, 4)
	var wg sync.WaitGroup
	for i := range engines { // concurrently, as trials build them
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := NewBucket(m, nil)
			if err != nil {
				t.Error(err)
				return
			}
			engines[i] = b
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, b := range engines[1:] {
		if &b.edges[0] != &engines[0].edges[0] || &b.cls[0] != &engines[0].cls[0] {
			t.Fatal("two engines on one model built their own tables")
		}
	}
	other, err := NewBucket(frustrated2d(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if &other.edges[0] == &engines[0].edges[0] {
		t.Fatal("engines on different models share tables")
	}
	runtime.KeepAlive(m)
}
