package executor

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used: the
// benchmarks' steadier figure on a shared machine, where wall time also
// counts the waits for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
