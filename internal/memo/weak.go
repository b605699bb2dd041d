package memo

import (
	"runtime"
	"sync"
	"weak"
)

// Weak holds what is derived from a value (a model's analysis, its other
// forms) for as long as that value lives: built once, however many
// goroutines ask at once (the others wait: an RBM's Ising form takes
// hundreds of megabytes, too much to build twice), and dropped when the
// value is collected. The values must not change once built on.
type Weak[S, D any] struct {
	m sync.Map // weak.Pointer[S] -> *weakEntry[D]
}

type weakEntry[D any] struct {
	once sync.Once
	v    D
}

// Get returns build(src), built once while src lives.
func (w *Weak[S, D]) Get(src *S, build func(*S) D) D {
	k := weak.Make(src)
	v, ok := w.m.Load(k)
	if !ok {
		var loaded bool
		if v, loaded = w.m.LoadOrStore(k, new(weakEntry[D])); !loaded {
			runtime.AddCleanup(src, func(k weak.Pointer[S]) { w.m.Delete(k) }, k)
		}
	}
	e := v.(*weakEntry[D])
	e.once.Do(func() { e.v = build(src) })
	return e.v
}

// Has reports whether src's value has been asked for (built or being
// built).
func (w *Weak[S, D]) Has(src *S) bool {
	_, ok := w.m.Load(weak.Make(src))
	return ok
}

// Len is the number of values held.
func (w *Weak[S, D]) Len() int {
	n := 0
	w.m.Range(func(any, any) bool { n++; return true })
	return n
}
