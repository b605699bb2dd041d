//go:build ignore

// selectbench times ways to find the member of rank k in a class's bitset
// of n bits (the pick a bucket engine without back-pointers needs), each
// select's k depending on the one before (latency, as in a walk), with
// random updates between selects as a walk's neighbour moves make them:
//
//	tree16:  a 16-ary count tree over 512-bit blocks, scanned (the
//	         bitset-members.patch design)
//	fenwick: a Fenwick tree over 512-bit blocks, descended by binary
//	         lifting (a flag, not a branch, on the data)
//
// then the block's words by their populations and the word's bit.
//
//	go run results/flip-cost/selectbench/main.go 1000000 0.2
package main

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

const blockShift = 9

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	rho, _ := strconv.ParseFloat(os.Args[2], 64)
	r := rand.New(rand.NewPCG(1, 2))
	nw := (n + 63) / 64
	words := make([]uint64, nw)
	cnt := 0
	for i := range n {
		if r.Float64() < rho {
			words[i>>6] |= 1 << (i & 63)
			cnt++
		}
	}
	nb := (n + 511) >> blockShift
	blk := make([]uint32, nb)
	for i := range nw {
		blk[i>>3] += uint32(bits.OnesCount64(words[i]))
	}
	// Fenwick over blk (1-based).
	fw := make([]uint32, nb+1)
	for i := 1; i <= nb; i++ {
		fw[i] += blk[i-1]
		if j := i + i&-i; j <= nb {
			fw[j] += fw[i]
		}
	}
	top := 1 << (bits.Len(uint(nb)) - 1)
	// 16-ary tree over blk.
	var lev [][]uint32
	lev = append(lev, blk)
	for x := nb; x > 16; {
		nx := (x + 15) / 16
		l := make([]uint32, nx)
		for i, v := range lev[len(lev)-1] {
			l[i/16] += v
		}
		lev = append(lev, l)
		x = nx
	}
	inWord := func(w int, k uint32) int32 {
		for {
			p := uint32(bits.OnesCount64(words[w]))
			if k < p {
				break
			}
			k -= p
			w++
		}
		x := words[w]
		pos := 0
		for _, s := range [3]uint{32, 16, 8} {
			p := uint32(bits.OnesCount64(x & (1<<s - 1)))
			t := (p - k - 1) >> 31
			k -= p & -t
			x >>= s & uint(-int(t))
			pos += int(s) & -int(t)
		}
		for ; k > 0; k-- {
			x &= x - 1
		}
		return int32(w<<6 + pos + bits.TrailingZeros64(x))
	}
	fenwick := func(k uint32) int32 {
		pos := 0
		for step := top; step > 0; step >>= 1 {
			nx := pos + step
			v := uint32(0xffffffff)
			if nx <= nb {
				v = fw[nx]
			}
			var t uint32 // 1 if v <= k (a SETCC, not a branch)
			if v <= k {
				t = 1
			}
			pos += step & -int(t)
			k -= v & -t
		}
		return inWord(pos*8, k)
	}
	tree16 := func(k uint32) int32 {
		x, end := 0, len(lev[len(lev)-1])
		for i := len(lev) - 1; i >= 0; i-- {
			lv := lev[i]
			end = min(end, len(lv))
			for x < end-1 && lv[x] <= k {
				k -= lv[x]
				x++
			}
			x <<= 4
			end = x + 16
		}
		return inWord((x>>4)*8, k)
	}
	// Check both against a plain scan.
	for range 1000 {
		k := uint32(r.IntN(cnt))
		a, b := fenwick(k), tree16(k)
		c, kk := 0, k
		for i := range n {
			if words[i>>6]>>(i&63)&1 == 1 {
				if kk == 0 {
					c = i
					break
				}
				kk--
			}
		}
		if a != int32(c) || b != int32(c) {
			fmt.Println("mismatch", k, a, b, c)
			os.Exit(1)
		}
	}
	for _, f := range []struct {
		name string
		sel  func(uint32) int32
	}{{"tree16", tree16}, {"fenwick", fenwick}, {"tree16", tree16}, {"fenwick", fenwick}} {
		const m = 2000000
		var acc int32
		t0 := time.Now()
		for i := range m {
			k := uint32((uint64(uint32(acc)*2654435761+uint32(i)) * uint64(cnt)) >> 32)
			acc = f.sel(k)
		}
		fmt.Printf("n %d, density %.3f: %-8s %5.1f ns a select (%d)\n", n, rho, f.name, float64(time.Since(t0).Nanoseconds())/m, acc&1)
	}
}
