package bench_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuUse is where the machine's CPU went over a run, from Linux's /proc (zeros elsewhere):
// the Sluice nodes, PostgreSQL's processes, this client, and the machine as a whole.
type cpuUse struct {
	nodes, postgres, client int64 // clock ticks (user + system)
	busy, total             int64 // all cores
}

// sampleCPU reads the counters for the node processes pids.
func sampleCPU(pids []int) cpuUse {
	var u cpuUse
	for _, pid := range pids {
		u.nodes += procTicks(strconv.Itoa(pid))
	}
	u.client = procTicks("self")
	if dirs, _ := filepath.Glob("/proc/[0-9]*"); dirs != nil {
		for _, d := range dirs {
			if comm, _ := os.ReadFile(d + "/comm"); strings.TrimSpace(string(comm)) == "postgres" {
				u.postgres += procTicks(filepath.Base(d))
			}
		}
	}
	if stat, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(stat), "\n")
		for i, f := range strings.Fields(line)[1:] {
			n, _ := strconv.ParseInt(f, 10, 64)
			u.total += n
			if i != 3 && i != 4 { // idle, iowait
				u.busy += n
			}
		}
	}
	return u
}

// procTicks is the user and system time of /proc/<pid> in clock ticks, 0 when it is gone.
func procTicks(pid string) int64 {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// the command name is in parentheses and may hold spaces: count fields after it
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

// since is the use between an earlier sample and u.
func (u cpuUse) since(e cpuUse) cpuUse {
	return cpuUse{u.nodes - e.nodes, u.postgres - e.postgres, u.client - e.client, u.busy - e.busy, u.total - e.total}
}

// clockTicks is Linux's USER_HZ, the unit of /proc's times.
const clockTicks = 100

func pids(nodes []*server) []int {
	var out []int
	for _, n := range nodes {
		out = append(out, n.cmd.Process.Pid)
	}
	return out
}
