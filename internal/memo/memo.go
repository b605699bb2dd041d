package memo

import "sync"

// Shared holds Build(k) for every key asked for in this process, at most
// Max of them (then it starts over). Values must be read-only once built.
type Shared[K comparable, V any] struct {
	Build func(K) V
	Max   int
	mu    sync.Mutex
	m     map[K]V
}

// Get returns Build(k), built once.
func (s *Shared[K, V]) Get(k K) V {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok {
		if s.m == nil || len(s.m) >= s.Max {
			s.m = map[K]V{}
		}
		v = s.Build(k)
		s.m[k] = v
	}
	return v
}

// Local is one user's (one engine's) front to a Shared, read without a
// lock: a chain with a mixture of thetas changes biases every step, and the
// R chains of replica exchange each visit R temperatures.
type Local[K comparable, V any] struct{ m map[K]V }

// localMax bounds a Local; past it the Local starts over.
const localMax = 64

// Get returns s.Build(k), from l when l has it.
func (l *Local[K, V]) Get(s *Shared[K, V], k K) V {
	if v, ok := l.m[k]; ok {
		return v
	}
	v := s.Get(k)
	if l.m == nil || len(l.m) >= localMax {
		l.m = map[K]V{}
	}
	l.m[k] = v
	return v
}
