package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The TPC-H suite runs three engines on one small shared machine, where
// a run at 2 workers needs both cores: a PostgreSQL background process,
// DuckDB's threads winding down or another tenant's VM (steal) slows it
// down and makes its median say little. So each timed run records where
// the machine's CPU went while it ran, and waits for the machine to be
// idle before it starts.

// cpuSample is the machine's and this process's CPU time so far.
type cpuSample struct {
	busy  time.Duration // every CPU's user, nice, system, irq and softirq time
	steal time.Duration // time the hypervisor gave this VM's CPUs to others
	self  time.Duration // this process's user and system time
	ok    bool          // false where /proc/stat cannot be read
}

// clockTick is USER_HZ, the unit of /proc/stat; 100 on every Linux
// platform Go supports.
const clockTick = 10 * time.Millisecond

func sampleCPU() cpuSample {
	var s cpuSample
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	f, err := os.Open("/proc/stat")
	if err != nil {
		return s
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return s
	}
	// cpu  user nice system idle iowait irq softirq steal guest guest_nice
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return s
	}
	ticks := func(i int) time.Duration {
		n, _ := strconv.ParseInt(fields[i], 10, 64)
		return time.Duration(n) * clockTick
	}
	s.busy = ticks(1) + ticks(2) + ticks(3) + ticks(6) + ticks(7)
	s.steal = ticks(8)
	s.ok = true
	return s
}

// cpuUse is what one timed run cost the machine.
type cpuUse struct {
	BusyMS  float64 `json:"machine_busy_ms"` // all processes, every CPU
	SelfMS  float64 `json:"pgfedbench_ms"`   // pgfedbench's process: pgfed itself, or another engine's client
	StealMS float64 `json:"steal_ms"`
}

func cpuSince(start cpuSample) (cpuUse, bool) {
	end := sampleCPU()
	if !start.ok || !end.ok {
		return cpuUse{}, false
	}
	return cpuUse{BusyMS: ms(end.busy - start.busy), SelfMS: ms(end.self - start.self),
		StealMS: ms(end.steal - start.steal)}, true
}

// waitIdle waits, at most limit, until the machine's CPUs were less than
// 5% busy (steal included) for a fifth of a second, and says how long it
// waited and whether the machine settled.
func waitIdle(limit time.Duration) (time.Duration, bool) {
	const window = 200 * time.Millisecond
	capacity := window * time.Duration(runtime.NumCPU())
	start := time.Now()
	prev := sampleCPU()
	if !prev.ok {
		return 0, true
	}
	for time.Since(start) < limit {
		time.Sleep(window)
		cur := sampleCPU()
		used := (cur.busy - prev.busy) + (cur.steal - prev.steal)
		if used*20 < capacity {
			return time.Since(start), true
		}
		prev = cur
	}
	return time.Since(start), false
}
