//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// BenchmarkManyRollouts: one controller of its own with many small canary
// Rollouts (2 replicas, steps 50/100): the controller's memory (RSS from
// /proc) and API writes per Rollout, to
// Healthy and through one update. Prints figures; asserts no timing.
// RAMP_BENCH_ROLLOUTS sets how many (200 by default; docs/operations.md's
// measured figures come from it).
func BenchmarkManyRollouts(b *testing.B) {
	n := benchSize(b, "RAMP_BENCH_ROLLOUTS", 200)
	ns := namespace(b, "scale")
	p := ownController(b, ns, ns)
	ctx := context.Background()
	idle := memory(b, p)
	before := restRequests(b, p)
	start := time.Now()
	for i := 0; i < n; i++ {
		ro := &rampv1.Rollout{}
		doc := rolloutYAML{name: fmt.Sprintf("app-%03d", i), replicas: 2, instance: ns, canary: "steps:\n- setWeight: 50\n- setWeight: 100\n"}.String()
		if err := yaml.Unmarshal([]byte(doc), ro); err != nil {
			b.Fatal(err)
		}
		ro.Namespace = ns
		if err := env.client.Create(ctx, ro); err != nil {
			b.Fatal(err)
		}
	}
	waitAll := func(what string, done func(*rampv1.Rollout) bool) time.Duration {
		eventually(b, time.Duration(max(5, n/100))*time.Minute, what, func() error {
			var list rampv1.RolloutList
			if err := env.client.List(ctx, &list, client.InNamespace(ns)); err != nil {
				return err
			}
			ok := 0
			for i := range list.Items {
				if done(&list.Items[i]) {
					ok++
				}
			}
			if ok != n {
				return fmt.Errorf("%d of %d", ok, n)
			}
			return nil
		})
		return time.Since(start)
	}
	created := waitAll("all Healthy", func(ro *rampv1.Rollout) bool { return healthy(2, "")(ro) == nil })
	mid := restRequests(b, p)
	memHealthy := memory(b, p)

	start = time.Now()
	for i := 0; i < n; i++ {
		setImageDirect(b, ns, fmt.Sprintf("app-%03d", i), "registry.example/app:v2")
	}
	updated := waitAll("all updated and Healthy", func(ro *rampv1.Rollout) bool {
		return ro.Status.StableRS == ro.Status.CurrentPodHash && ro.Generation == 2 && healthy(2, "")(ro) == nil
	})
	after := restRequests(b, p)
	w1, r1 := requestDelta(before, mid)
	w2, r2 := requestDelta(mid, after)
	memAfter, memPeak := memory(b, p), procStatus(b, p, "VmHWM:")
	per := float64(n)
	b.Logf("%d rollouts: all Healthy %s after creation, %.1f writes each and %.0f reads in all; one update of all: %s, %.1f writes each and %.0f reads in all (watch renewals)",
		n, created.Round(time.Millisecond), w1/per, r1, updated.Round(time.Millisecond), w2/per, r2)
	b.Logf("controller RSS: %.0f MiB idle, %.0f MiB with %d rollouts (+%d ReplicaSets, %d pods), %.0f MiB after the update, %.0f MiB peak (VmHWM)",
		idle, memHealthy, n, n, 2*n, memAfter, memPeak)
	b.ReportMetric(w2/per, "writes/update")
	b.ReportMetric(memAfter, "MiB-RSS")
}

// memory is the controller process's resident set size in MiB (VmRSS).
func memory(b *testing.B, p *controllerProcess) float64 {
	b.Helper()
	return procStatus(b, p, "VmRSS:")
}

// procStatus is a kB field of the controller process's /proc status, in MiB.
func procStatus(b *testing.B, p *controllerProcess, field string) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	b.Fatalf("no %s in /proc status", field)
	return 0
}
