package cli

import (
	"context"
	"io"

	"fmt"
	"golang.org/x/term"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
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

// catchSignals raises the returned flag on SIGINT or SIGTERM; sig tells
// which arrived, quit stops listening.
func catchSignals() (stop *atomic.Bool, sig func() os.Signal, quit func()) {
	stop = new(atomic.Bool)
	var got atomic.Value
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			got.Store(s)
			stop.Store(true)
		case <-done:
		}
	}()
	sig = func() os.Signal {
		if s, ok := got.Load().(os.Signal); ok {
			return s
		}
		return syscall.SIGTERM
	}
	return stop, sig, func() { signal.Stop(ch); close(done) }
}

// signalContext is a context cancelled by SIGINT or SIGTERM (which also
// ends an inherited "ignore SIGINT" of a background job); sig tells which
// arrived, stop stops listening.
func signalContext() (ctx context.Context, sig func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var got atomic.Value
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			got.Store(s)
			cancel()
		case <-done:
		}
	}()
	sig = func() os.Signal {
		if s, ok := got.Load().(os.Signal); ok {
			return s
		}
		return syscall.SIGTERM
	}
	return ctx, sig, func() { signal.Stop(ch); close(done); cancel() }
}
