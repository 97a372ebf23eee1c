//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BenchmarkForeignObjects: what a namespace full of objects Ramp does not
// own costs the controller. It creates RAMP_BENCH_FOREIGN Services and as
// many Deployments (2,000 each in make bench; skipped without it), each carrying a
// kubectl-apply-sized last-applied annotation, in a namespace no Rollout
// uses, and prints the controller's RSS and Go heap before and after they
// reach its cache (docs/performance.md, "What the caches hold").
func BenchmarkForeignObjects(b *testing.B) {
	if os.Getenv("RAMP_BENCH_FOREIGN") == "" {
		b.Skip("RAMP_BENCH_FOREIGN unset: make bench runs it")
	}
	n := benchSize(b, "RAMP_BENCH_FOREIGN", 0)
	ns := namespace(b, "foreign")
	// GOGC=5: the heap in use stays within 5 % of the live heap, so the
	// figure is what the cache holds, not garbage awaiting collection.
	p, err := startControllerEnv([]string{"GOGC=5"}, "--leader-election-namespace", ns, "--instance-id", ns, "--leader-elect=false")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	eventually(b, 60*time.Second, "controller ready", p.ready)
	before, heap0 := memory(b, p), goHeap(b, p)
	sender := unthrottled(b)
	applied := strings.Repeat("x", 2048) // about what kubectl apply records of a small Deployment
	var wg sync.WaitGroup
	for w := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 10 {
				meta := metav1.ObjectMeta{Name: fmt.Sprintf("obj-%05d", i), Namespace: ns,
					Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: applied}, Labels: map[string]string{"app": "x"}}
				svc := &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "x"},
					Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
				if err := sender.Create(context.Background(), svc); err != nil {
					b.Error(err)
					return
				}
				replicas := int32(0)
				d := &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: &replicas,
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:v1"}}}}}}
				if err := sender.Create(context.Background(), d); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// The last Deployment's status from its controller: by then the
	// controller's informers have long had the objects.
	eventually(b, 2*time.Minute, "the Deployments observed by their controller", func() error {
		var list appsv1.DeploymentList
		if err := env.client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		seen := 0
		for _, d := range list.Items {
			if d.Status.ObservedGeneration == d.Generation {
				seen++
			}
		}
		if seen != n {
			return fmt.Errorf("%d of %d", seen, n)
		}
		return nil
	})
	after, heap1 := memory(b, p), goHeap(b, p)
	b.Logf("%d Services and %d Deployments (2 KiB last-applied annotation each) in a namespace without Rollouts: controller RSS %.0f -> %.0f MiB, Go heap in use %.1f -> %.1f MiB (%.2f KiB per object)",
		n, n, before, after, heap0, heap1, (heap1-heap0)*1024/float64(2*n))
	b.ReportMetric((heap1-heap0)*1024/float64(2*n), "KiB-heap/object")
}

// goHeap is the controller's Go heap in use (go_memstats_heap_inuse_bytes),
// in MiB.
func goHeap(b *testing.B, p *controllerProcess) float64 {
	b.Helper()
	_, body, err := httpGet("http://" + p.metrics + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				b.Fatal(err)
			}
			return f / (1 << 20)
		}
	}
	b.Fatal("no go_memstats_heap_inuse_bytes on /metrics")
	return 0
}
