package topology

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// sysCPU is where Linux describes each CPU (cpuN/topology, cpuN/nodeK).
const sysCPU = "/sys/devices/system/cpu"

// Place is a CPU list ordered for engine sections and trials: one CPU
// per physical core first, then the cores' SMT siblings, each group by
// NUMA node (the node of the list's first CPU first, then the others in
// the order they first appear) and then by id. Slices of consecutive CPUs
// (runner.slotConfig) then give a parallel engine's sections separate
// physical cores on one node while the machine has them (issue 33: two
// sections on the siblings of one core share its caches and its units).
// Where sysfs does not describe a CPU, it counts as its own core on
// node 0; the order is then the given one.
type Place struct {
	CPUs     []int // the ordered list
	Siblings int   // how many of them are a second (third...) thread of a core
	Nodes    int   // NUMA nodes among them
}

// Placement orders cpus (for example CPUs()) by the machine's topology
// (see Place).
func Placement(cpus []int) Place { return placement(sysCPU, cpus) }

// placement is Placement reading the topology from root (tests give a
// made-up tree).
func placement(root string, cpus []int) Place {
	type cpuAt struct {
		id, rank, node, at int // rank: 0 for a core's first CPU in cpus, 1 for the next...
	}
	cores := map[string]int{} // a core (its siblings list, or the CPU) -> CPUs of it so far
	nodes := map[int]int{}    // node -> its order of first appearance
	var l []cpuAt
	for at, id := range cpus {
		dir := filepath.Join(root, "cpu"+strconv.Itoa(id))
		core := "cpu" + strconv.Itoa(id)
		if b, err := os.ReadFile(filepath.Join(dir, "topology", "thread_siblings_list")); err == nil {
			pkg, _ := os.ReadFile(filepath.Join(dir, "topology", "physical_package_id"))
			core = strings.TrimSpace(string(pkg)) + "/" + strings.TrimSpace(string(b))
		}
		node := nodeOf(dir)
		if _, ok := nodes[node]; !ok {
			nodes[node] = len(nodes)
		}
		l = append(l, cpuAt{id: id, rank: cores[core], node: nodes[node], at: at})
		cores[core]++
	}
	slices.SortStableFunc(l, func(a, b cpuAt) int {
		return cmp.Or(cmp.Compare(min(a.rank, 1), min(b.rank, 1)), cmp.Compare(a.node, b.node), cmp.Compare(a.rank, b.rank), cmp.Compare(a.at, b.at))
	})
	p := Place{Nodes: len(nodes)}
	for _, c := range l {
		p.CPUs = append(p.CPUs, c.id)
		if c.rank > 0 {
			p.Siblings++
		}
	}
	return p
}

// nodeOf is the NUMA node of the CPU whose sysfs directory is dir (its
// nodeK entry), 0 when sysfs does not say.
func nodeOf(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "node[0-9]*"))
	for _, x := range m {
		if k, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(x), "node")); err == nil {
			return k
		}
	}
	return 0
}

// Describe is the placement of the first n CPUs (a parallel engine's
// sections, or the first trial's), for the run's log: "CPUs 0,2,4,6
// (separate physical cores)", or "CPUs 0,1,2 (2 physical cores and 1 SMT
// siblings; the usable CPUs span 2 NUMA nodes)".
func (p Place) Describe(n int) string {
	n = min(n, len(p.CPUs))
	ids := make([]string, n)
	for i, c := range p.CPUs[:n] {
		ids[i] = strconv.Itoa(c)
	}
	what := "separate physical cores"
	if n > len(p.CPUs)-p.Siblings {
		what = fmt.Sprintf("%d physical cores and %d SMT siblings", len(p.CPUs)-p.Siblings, n-(len(p.CPUs)-p.Siblings))
	}
	if p.Nodes > 1 {
		what += fmt.Sprintf("; the usable CPUs span %d NUMA nodes", p.Nodes)
	}
	return fmt.Sprintf("CPUs %s (%s)", strings.Join(ids, ","), what)
}
