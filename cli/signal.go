package cli

import (
	"context"
	"io"

	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"golang.org/x/term"
)

// isTerminal says whether w is a terminal (progress bar) or a file or pipe
// (plain lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// InterruptedError reports a run stopped by a signal after checkpointing;
// the process exits with the conventional status 128 + signal number.
type InterruptedError struct{ Signal os.Signal }

func (e *InterruptedError) Error() string { return fmt.Sprintf("stopped by %v", e.Signal) }

// listen calls on (once) with the first SIGINT or SIGTERM; quit stops
// listening. Asking for SIGINT also ends an inherited "ignore SIGINT" of a
// background job.
func listen(on func(os.Signal)) (quit func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			on(s)
		case <-done:
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// received records the signal listen saw.
type received struct{ v atomic.Value }

func (r *received) store(s os.Signal) { r.v.Store(s) }

// get is the signal received, SIGTERM if none.
func (r *received) get() os.Signal {
	if s, ok := r.v.Load().(os.Signal); ok {
		return s
	}
	return syscall.SIGTERM
}

// catchSignals raises the returned flag on SIGINT or SIGTERM; sig tells
// which arrived, quit stops listening.
func catchSignals() (stop *atomic.Bool, sig func() os.Signal, quit func()) {
	stop = new(atomic.Bool)
	var got received
	quit = listen(func(s os.Signal) { got.store(s); stop.Store(true) })
	return stop, got.get, quit
}

// signalContext is a context cancelled by SIGINT or SIGTERM; sig tells
// which arrived, stop stops listening.
func signalContext() (ctx context.Context, sig func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var got received
	quit := listen(func(s os.Signal) { got.store(s); cancel() })
	return ctx, got.get, func() { quit(); cancel() }
}

// untilSignal runs f and returns its error, or ctx's as soon as ctx is
// done (a signal) while f still runs: for the phases that keep nothing a
// signal should wait for (loading and checking, the summary). The command
// then returns, and the process's exit ends f.
func untilSignal(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
