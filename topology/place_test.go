package topology

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// fakeSys writes a sysfs CPU tree: cpu id -> (package, siblings list,
// node).
func fakeSys(t *testing.T, cpus map[int][3]string) string {
	root := t.TempDir()
	for id, d := range cpus {
		dir := filepath.Join(root, "cpu"+strconv.Itoa(id))
		if err := os.MkdirAll(filepath.Join(dir, "topology"), 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range map[string]string{"physical_package_id": d[0], "thread_siblings_list": d[1]} {
			if err := os.WriteFile(filepath.Join(dir, "topology", f), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "node"+d[2]), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPlacement: physical cores first (one CPU each), by node, then the
// SMT siblings, for siblings numbered side by side (AMD-style) and half
// the machine apart (Intel-style); a mask holding one CPU of a core makes
// it that core's first; no sysfs keeps the order.
func TestPlacement(t *testing.T) {
	side := fakeSys(t, map[int][3]string{
		0: {"0", "0-1", "0"}, 1: {"0", "0-1", "0"}, 2: {"0", "2-3", "0"}, 3: {"0", "2-3", "0"},
		4: {"1", "4-5", "1"}, 5: {"1", "4-5", "1"}, 6: {"1", "6-7", "1"}, 7: {"1", "6-7", "1"},
	})
	apart := fakeSys(t, map[int][3]string{
		0: {"0", "0,4", "0"}, 1: {"0", "1,5", "0"}, 2: {"0", "2,6", "0"}, 3: {"0", "3,7", "0"},
		4: {"0", "0,4", "0"}, 5: {"0", "1,5", "0"}, 6: {"0", "2,6", "0"}, 7: {"0", "3,7", "0"},
	})
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for _, c := range []struct {
		name, root string
		cpus, want []int
		sib, nodes int
	}{
		{"side by side, 2 nodes", side, all, []int{0, 2, 4, 6, 1, 3, 5, 7}, 4, 2},
		{"half apart", apart, all, all, 4, 1},
		{"a mask of odd CPUs", side, []int{1, 3, 5, 7}, []int{1, 3, 5, 7}, 0, 2},
		{"a mask starting on node 1", side, []int{4, 5, 6, 0, 1}, []int{4, 6, 0, 5, 1}, 2, 2},
		{"no sysfs", filepath.Join(t.TempDir(), "none"), []int{3, 1, 2}, []int{3, 1, 2}, 0, 1},
	} {
		p := placement(c.root, c.cpus)
		if !slices.Equal(p.CPUs, c.want) || p.Siblings != c.sib || p.Nodes != c.nodes {
			t.Errorf("%s: %v (%d siblings, %d nodes), want %v (%d, %d)", c.name, p.CPUs, p.Siblings, p.Nodes, c.want, c.sib, c.nodes)
		}
	}
	if got, want := placement(side, all).Describe(2), "CPUs 0,2 (separate physical cores; the usable CPUs span 2 NUMA nodes)"; got != want {
		t.Errorf("Describe(2) = %q, want %q", got, want)
	}
	if got, want := placement(apart, all).Describe(6), "CPUs 0,1,2,3,4,5 (4 physical cores and 2 SMT siblings)"; got != want {
		t.Errorf("Describe(6) = %q, want %q", got, want)
	}
}
