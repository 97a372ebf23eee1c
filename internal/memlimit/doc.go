// Package memlimit keeps the controller within the memory limit its
// container runs under. Limit reads that limit from the cgroup (v2
// memory.max, v1 memory.limit_in_bytes); SetSoftLimit gives it to the Go
// runtime (debug.SetMemoryLimit) when GOMEMLIMIT is unset, so the garbage
// collector works harder near the limit instead of letting the heap grow
// past it; a Watcher samples the runtime's memory (runtime/metrics, no
// stop-the-world) and logs a warning each time use crosses a share of the
// limit.
//
// It imports no Ramp package and no client.
package memlimit
