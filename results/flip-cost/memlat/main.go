//go:build ignore

// memlat measures this machine's latency of a random read (one pointer
// chase through a random cycle of cache lines) and the cost per read of
// eight independent chases at once (what prefetching many lines in
// parallel can reach), over an array of the given MB.
//
//	go run results/flip-cost/memlat/main.go 1 4 16 64
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

func main() {
	for _, arg := range os.Args[1:] {
		mb, err := strconv.Atoi(arg)
		if err != nil || mb < 1 {
			fmt.Fprintln(os.Stderr, "usage: memlat MB...")
			os.Exit(2)
		}
		chase(mb)
	}
}

func chase(mb int) {
	n := mb << 20 / 8
	a := make([]uint64, n)
	lines := n / 8 // one entry a 64-byte line
	perm := rand.Perm(lines)
	for i := range lines {
		a[perm[i]*8] = uint64(perm[(i+1)%lines] * 8)
	}
	const steps = 2000000
	p := uint64(perm[0] * 8)
	t0 := time.Now()
	for range steps {
		p = a[p]
	}
	one := float64(time.Since(t0).Nanoseconds()) / steps
	var q [8]uint64
	for k := range q {
		q[k] = uint64(perm[k*lines/8] * 8)
	}
	t0 = time.Now()
	for range steps / 8 {
		for k := range q {
			q[k] = a[q[k]]
		}
	}
	eight := float64(time.Since(t0).Nanoseconds()) / steps
	fmt.Printf("%4d MB: %6.1f ns a read, one chase; %5.1f ns a read, 8 chases (%d %d)\n", mb, one, eight, p&1, q[0]&1)
}
