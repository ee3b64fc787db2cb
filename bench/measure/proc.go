package measure

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit /proc reports CPU times in: 100 on every
// Linux the project runs on.
const clockTick = 100

// ProcCPU is the CPU time (user + system) process pid has used so far.
func ProcCPU(pid int) (time.Duration, error) { return procStatCPU(pid, false) }

// ProcCPUWithChildren is ProcCPU plus the CPU time of the children pid has
// waited for (cutime + cstime): a process that reaps short-lived children
// (a container runtime's shim and its runc calls) is charged with them when
// it reaps them.
func ProcCPUWithChildren(pid int) (time.Duration, error) { return procStatCPU(pid, true) }

func procStatCPU(pid int, children bool) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// after its closing one (state is field 3, utime 14, stime 15, cutime 16,
	// cstime 17).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+2:]))
	last := 13 // utime, stime
	if children {
		last = 15 // and cutime, cstime
	}
	if len(f) < last {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name", pid, len(f))
	}
	var ticks int64
	for _, v := range f[11:last] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: CPU time %q", pid, v)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTick, nil
}

var (
	vmRSS   = regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB$`)
	threads = regexp.MustCompile(`(?m)^Threads:\s+(\d+)$`)
)

// statusField is the value that re (one group) finds in /proc/<pid>/status;
// name says which field, for the error.
func statusField(pid int, re *regexp.Regexp, name string) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", err
	}
	m := re.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("no %s in /proc/%d/status", name, pid)
	}
	return string(m[1]), nil
}

// ProcRSSMiB is process pid's resident set size in MiB.
func ProcRSSMiB(pid int) (float64, error) {
	v, err := statusField(pid, vmRSS, "VmRSS")
	if err != nil {
		return 0, err
	}
	kb, _ := strconv.ParseFloat(v, 64)
	return kb / 1024, nil
}

// ProcThreads is the number of OS threads of process pid.
func ProcThreads(pid int) (int, error) {
	v, err := statusField(pid, threads, "Threads")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// HostBusy is the machine's busy CPU time so far, every process's: /proc/stat's
// first line less idle and iowait.
func HostBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var busy time.Duration
	for i := 1; i < len(f) && i <= 8; i++ {
		if i == 4 || i == 5 {
			continue
		}
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %q", line)
		}
		busy += time.Duration(v) * time.Second / clockTick
	}
	return busy, nil
}

// LoadAvg is the machine's 1-minute load average.
func LoadAvg() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/loadavg is empty")
	}
	return strconv.ParseFloat(f[0], 64)
}
