//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// stopProcess sends SIGTERM to p, then SIGKILL if exited is not closed
// after 10 s, and waits for it.
func stopProcess(p *os.Process, exited <-chan struct{}) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.Kill()
		<-exited
	}
}

// templateWithRuns is an AnalysisTemplate named name taking the argument
// arg, with metrics (its "  metrics:" block), and per value an AnalysisRun
// of the same metrics named for the value, with arg set to it.
func templateWithRuns(name, arg, metrics string, values ...string) string {
	out := fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata: {name: %s}\nspec:\n  args:\n  - name: %s\n%s", name, arg, metrics)
	for _, v := range values {
		out += fmt.Sprintf("---\napiVersion: argoproj.io/v1alpha1\nkind: AnalysisRun\nmetadata: {name: %s}\nspec:\n  args:\n  - {name: %s, value: %s}\n%s", v, arg, v, metrics)
	}
	return out
}
