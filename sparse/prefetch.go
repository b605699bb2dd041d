package sparse

import (
	"unsafe"
)

// prefetchMin is the number of bits from which a walk primes the caches
// (prime): below it the engine's tables stay in L2 and the guesses cost
// more than the misses they save (measured: 2^14 bits slower, 2^16 even,
// 2^18 and up faster).
const prefetchMin = 1 << 17

// primeMax bounds the flips of a walk that prime prefetches for.
const primeMax = 64

// prime is the scratch of Bucket.prime.
type prime struct {
	p, l [primeMax]int32 // per flip: the guessed slot in mem and its bit
	pre  [maxClasses]float64
	addr []uintptr
}

// prime guesses the picks of the walk about to run on the draws u at bias
// b, and prefetches what its flips will touch, in four rounds (each
// needs the lines the previous one fetched): the slots in mem; the bits'
// states, adjacency rows, couplings and spins; their neighbours' states;
// and the neighbours' slots in mem, which their moves between classes
// write. The guesses are the picks made from the counts before the walk
// (pick's fields make them stable when the counts change a little: at
// 10^6 spins 98.5% of a 10-flip walk's picks, 41% had the member been the
// high word of u n), so a wrong one only costs its misses.
// Prefetches change no state, so the walk's results are the same bits.
func (bk *Bucket) prime(u []uint64, b int) {
	pp := &bk.pp
	nc := len(bk.cl)
	w, cla, mem, bt := &bk.w, &bk.cla, bk.mem, bk.bits
	z := 0.0
	for c := range pp.pre[:nc] {
		z += float64(cla[c].cnt) * w[c][b&1]
		pp.pre[c] = z
	}
	n := min(len(u)/2, primeMax)
	addr := pp.addr[:0]
	for v := range n {
		x := float64(u[2*v]>>11) * 0x1p-53 * z
		c := 0
		for _, p := range pp.pre[:nc] {
			c += b2i(p <= x)
		}
		cl := &cla[min(c, nc-1)]
		pp.p[v] = cl.base + int32(guess(u[2*v+1], uint64(cl.cnt)))
		addr = append(addr, uintptr(unsafe.Pointer(&mem[pp.p[v]])))
	}
	addr = prefetched(addr)
	for v := range n {
		l := mem[pp.p[v]]
		pp.l[v] = l
		lo, _ := bk.row(l)
		addr = append(addr, uintptr(unsafe.Pointer(&bt[l])), uintptr(unsafe.Pointer(&bk.s[l])))
		if lo < int32(len(bk.adj)) {
			addr = append(addr, uintptr(unsafe.Pointer(&bk.adj[lo])))
			if bk.edges != nil {
				addr = append(addr, uintptr(unsafe.Pointer(&bk.edges[lo])))
			} else {
				addr = append(addr, uintptr(unsafe.Pointer(&bk.edges32[lo])))
			}
		}
	}
	addr = prefetched(addr)
	for v := range n {
		lo, hi := bk.row(pp.l[v])
		for _, j := range bk.adj[lo:hi] {
			addr = append(addr, uintptr(unsafe.Pointer(&bt[j])))
		}
	}
	addr = prefetched(addr)
	for v := range n {
		lo, hi := bk.row(pp.l[v])
		for _, j := range bk.adj[lo:hi] {
			if p := bt[j].pos; p >= 0 {
				addr = append(addr, uintptr(unsafe.Pointer(&mem[p])))
			}
		}
	}
	pp.addr = prefetched(addr)
}

// prefetched prefetches the addresses of addr and returns it emptied.
func prefetched(addr []uintptr) []uintptr {
	if len(addr) > 0 {
		prefetchAll(&addr[0], len(addr))
	}
	return addr[:0]
}

// guess is pick without the fresh draws (0 where pick would take them).
func guess(u, n uint64) uint64 {
	v, _ := fields(u, n) // 0 when every field is rejected
	return v
}
