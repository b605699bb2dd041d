package summary

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"

	"sardonics/npy"
)

// SampleSet is a trial's saved states (--save-states) as distinct states
// with their energies and how often each was saved: samples.npz, whose
// states are packed eight bits to a byte, so that it is at most an eighth
// of states.npy plus 16 bytes per distinct state.
type SampleSet struct {
	First    []int     // each distinct state's first row in TrialRecord.States, in order of first appearance
	Energies []float64 // its energy (in the model's convention) when first saved
	Counts   []int64   // how many saved rows are this state
}

// NewSampleSet groups the rows of states (of energies energies[j]) into
// distinct states in order of first appearance.
func NewSampleSet(states [][]uint8, energies []float64) *SampleSet {
	set := &SampleSet{}
	seed := maphash.MakeSeed()
	index := map[uint64][]int{} // hash of a state -> its distinct states
	for j, row := range states {
		h := maphash.Bytes(seed, row)
		k := slices.IndexFunc(index[h], func(d int) bool { return bytes.Equal(states[set.First[d]], row) })
		if k >= 0 {
			set.Counts[index[h][k]]++
			continue
		}
		index[h] = append(index[h], len(set.First))
		set.First = append(set.First, j)
		set.Energies = append(set.Energies, energies[j])
		set.Counts = append(set.Counts, 1)
	}
	return set
}

// npz is an uncompressed NumPy .npz archive of the named .npy arrays (in
// order): what numpy.savez writes and numpy.load reads.
func npz(names []string, arrays [][]byte) ([]byte, error) {
	as := make([]npy.Array, len(names))
	for i, name := range names {
		as[i] = npy.Array{Name: name, Data: arrays[i]}
	}
	return npy.Archive(as...)
}

// samplesNPZ is samples.npz of set over the rows of states: states (D x
// ceil(N/8) uint8, the distinct states' bits packed eight to a byte, bit
// i of a row in bit i%8 of byte i/8, as numpy.packbits(..., bitorder=
// "little") packs them), n (N, an int64 scalar), energies (D float64) and
// counts (D int64).
func samplesNPZ(set *SampleSet, states [][]uint8) ([]byte, error) {
	n := 0
	if len(states) > 0 {
		n = len(states[0])
	}
	w := (n + 7) / 8
	packed := npy.Header("|u1", len(set.First), w)
	for _, j := range set.First {
		row := make([]byte, w)
		for i, b := range states[j] {
			row[i/8] |= (b & 1) << (i % 8)
		}
		packed = append(packed, row...)
	}
	nn := binary.LittleEndian.AppendUint64(npy.Header("<i8"), uint64(n))
	e := npy.Header("<f8", len(set.Energies))
	for _, v := range set.Energies {
		e = binary.LittleEndian.AppendUint64(e, math.Float64bits(v))
	}
	c := npy.Header("<i8", len(set.Counts))
	for _, v := range set.Counts {
		c = binary.LittleEndian.AppendUint64(c, uint64(v))
	}
	return npz([]string{"states", "n", "energies", "counts"}, [][]byte{packed, nn, e, c})
}
