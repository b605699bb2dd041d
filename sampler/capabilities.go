package sampler

// Capabilities a chain may have beside Chain, each named here so that
// callers assert a named interface (and implementers check conformance at
// compile time, var _ I = (*T)(nil)) instead of an anonymous one written
// at the call site. Stateful, Resetter, Flipper, PairFlipper, Tempered and
// Magnetized are the others (chain.go, magnetization.go).

// ThreadCPU is a chain, or an engine, that computes on threads besides
// its caller's and accounts for their time: the parallel engines'
// sections, replica exchange's workers, and the chains built on them.
type ThreadCPU interface {
	// WorkerCPUSeconds is the CPU time so far of its threads other than
	// the caller's.
	WorkerCPUSeconds() float64
	// WaitCPUSeconds is the CPU time so far that its threads, the
	// caller's included, spent waiting for each other rather than
	// computing (part of the caller's thread CPU plus WorkerCPUSeconds).
	WaitCPUSeconds() float64
}

// WorkerCPUSeconds is x's ThreadCPU.WorkerCPUSeconds, or 0 for one that
// runs on its caller's thread only.
func WorkerCPUSeconds(x any) float64 {
	if w, ok := x.(ThreadCPU); ok {
		return w.WorkerCPUSeconds()
	}
	return 0
}

// WaitCPUSeconds is x's ThreadCPU.WaitCPUSeconds, or 0.
func WaitCPUSeconds(x any) float64 {
	if w, ok := x.(ThreadCPU); ok {
		return w.WaitCPUSeconds()
	}
	return 0
}

// Overlapped is a chain of two independent sets of replicas that reports
// the overlap q = (1/N) sum_i s_i s'_i of their target states after each
// step (replica exchange with --overlap).
type Overlapped interface {
	Overlap() float64
}

// MaybeStateful is a chain whose Stateful methods work only for some of
// what it holds (a SARDONICS chain's engine, a composite's parts):
// CanSave reports whether they do.
type MaybeStateful interface {
	Stateful
	CanSave() bool
}

// CanSave reports whether ch can save and restore its whole state: it is
// Stateful and, if it is a MaybeStateful, says it can.
func CanSave(ch Chain) bool {
	if m, ok := ch.(MaybeStateful); ok {
		return m.CanSave()
	}
	_, ok := ch.(Stateful)
	return ok
}
