package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuCap is a cgroup of its own whose processes share a fixed amount of CPU (cgroup v2's
// cpu.max, or v1's CFS quota): the load benchmark caps each node with one, so that one node
// and two can be compared where the nodes' CPU is the limit — as on machines of their own —
// on a machine whose cores the nodes otherwise share with PostgreSQL and the clients.
type cpuCap struct{ dir string }

// newCPUCap makes the cgroup name capped at cores; an error when this machine's cgroups
// cannot be written (not root, no cpu controller).
func newCPUCap(name string, cores float64) (*cpuCap, error) {
	const period = 100000 // µs
	quota := int(cores * period)
	if quota < 1000 {
		return nil, fmt.Errorf("%.3f cores is under CFS's least quota", cores)
	}
	if ctl, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(" "+string(ctl)+" ", " cpu ") {
		_ = os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+cpu"), 0o644)
		dir := filepath.Join("/sys/fs/cgroup", name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), fmt.Appendf(nil, "%d %d", quota, period), 0o644); err != nil {
			_ = os.Remove(dir)
			return nil, err
		}
		return &cpuCap{dir}, nil
	}
	root := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat(filepath.Join(root, "cpu.cfs_quota_us")); err != nil {
		return nil, fmt.Errorf("no cgroup cpu controller: %w", err)
	}
	dir := filepath.Join(root, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil, err
	}
	for file, v := range map[string]int{"cpu.cfs_period_us": period, "cpu.cfs_quota_us": quota} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.Itoa(v)), 0o644); err != nil {
			_ = os.Remove(dir)
			return nil, err
		}
	}
	return &cpuCap{dir}, nil
}

// add moves a process, all its threads, into the cgroup.
func (c *cpuCap) add(pid int) error {
	return os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
}

// remove deletes the cgroup once its processes have stopped.
func (c *cpuCap) remove() { _ = os.Remove(c.dir) }
