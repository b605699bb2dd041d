package topology

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestCPUs(t *testing.T) {
	ids, err := CPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 || !slices.IsSorted(ids) {
		t.Fatalf("CPUs() = %v (expected a non-empty increasing list)", ids)
	}
	if len(ids) > runtime.NumCPU() {
		t.Errorf("%d CPUs in the mask but runtime.NumCPU() = %d", len(ids), runtime.NumCPU())
	}
	if PhysicalCores() < 1 {
		t.Errorf("PhysicalCores() = %d", PhysicalCores())
	}
	t.Log(Describe())
}

func TestPin(t *testing.T) {
	ids, err := CPUs()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		// The goroutine exits locked, so its thread is discarded.
		cpu := ids[len(ids)-1]
		if err := Pin(cpu); err != nil {
			done <- err
			return
		}
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			done <- err
			return
		}
		if set.Count() != 1 || !set.IsSet(cpu) {
			t.Errorf("after Pin(%d) the mask has %d CPUs, CPU %d set: %v", cpu, set.Count(), cpu, set.IsSet(cpu))
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- Pin(-1)
	}()
	if err := <-done; err == nil {
		t.Error("Pin(-1) succeeded (expected an error)")
	}
}

// TestThreadCPU: another goroutine's thread CPU clock, read from here,
// grows while that thread spins and agrees with its own reading.
func TestThreadCPU(t *testing.T) {
	tids := make(chan int)
	own := make(chan float64)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- ThreadID()
		x := 0.0
		for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
			x += 1
		}
		var ts unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
		own <- float64(ts.Nano())/1e9 + x*0
		<-tids
	}()
	tid := <-tids
	mine := <-own
	theirs := ThreadCPU(tid)
	tids <- 0
	if !(theirs >= mine) || !(theirs < mine+0.05) || !(mine > 0.005) {
		t.Fatalf("thread CPU read from outside %.4f s, from inside %.4f s", theirs, mine)
	}
}

// TestDescribeIgnoresPinning: Describe counts the CPUs the process started
// with, even from a thread pinned to one of them.
func TestDescribeIgnoresPinning(t *testing.T) {
	ids, err := CPUs()
	if err != nil || len(ids) < 2 {
		t.Skip("needs 2 usable CPUs")
	}
	want := fmt.Sprintf(", %d CPUs usable,", len(ids))
	got := make(chan string)
	go func() {
		// Pin locks the thread: it ends with the goroutine, pinning and all.
		if err := Pin(ids[0]); err != nil {
			got <- "pin: " + err.Error()
			return
		}
		if now, _ := CPUs(); len(now) != 1 {
			got <- fmt.Sprintf("the pinned thread has %d CPUs", len(now))
			return
		}
		got <- Describe()
	}()
	if d := <-got; !strings.Contains(d, want) {
		t.Errorf("Describe from a pinned thread: %q, want %q", d, want)
	}
}
