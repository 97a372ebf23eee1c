//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// hpaSample is one look at an HPA and the pods it counts.
type hpaSample struct {
	at              time.Duration // since the sampler started
	stage           string        // what the test was waiting for
	stable, canary  int           // pods by ReplicaSet (not terminating)
	utilization     int32         // the HPA's measured average utilization, -1 unknown
	desired, target int32         // HPA status.desiredReplicas, Rollout spec.replicas
}

// hpaSampler samples an HPA, the Rollout it scales and its pods every
// interval until stopped, so a test can show and check every sample.
type hpaSampler struct {
	ns, hpa, rollout, app string
	resource              corev1.ResourceName

	mu      sync.Mutex
	stage   string
	samples []hpaSample
	stop    chan struct{}
	done    chan struct{}
	start   time.Time
}

func sampleHPA(t *testing.T, ns, hpa, rollout, app string, res corev1.ResourceName, every time.Duration) *hpaSampler {
	if every <= 0 {
		t.Fatalf("sampling interval %v", every)
	}
	s := &hpaSampler{ns: ns, hpa: hpa, rollout: rollout, app: app, resource: res, stage: "start",
		stop: make(chan struct{}), done: make(chan struct{}), start: time.Now()}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			s.record()
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(s.finish)
	return s
}

// record takes one sample now and keeps it.
func (s *hpaSampler) record() {
	smp, err := s.look()
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	smp.at, smp.stage = time.Since(s.start).Round(100*time.Millisecond), s.stage
	s.samples = append(s.samples, smp)
}

func (s *hpaSampler) look() (hpaSample, error) {
	ctx := context.Background()
	var h autoscalingv2.HorizontalPodAutoscaler
	if err := env.client.Get(ctx, client.ObjectKey{Namespace: s.ns, Name: s.hpa}, &h); err != nil {
		return hpaSample{}, err
	}
	ro, err := getRollout(s.ns, s.rollout)
	if err != nil {
		return hpaSample{}, err
	}
	all, _, err := podsByHash(s.ns, s.app)
	if err != nil {
		return hpaSample{}, err
	}
	smp := hpaSample{utilization: -1, desired: h.Status.DesiredReplicas, target: ro.Replicas()}
	if u := utilizationOf(&h, s.resource); u != nil {
		smp.utilization = *u
	}
	for hash, n := range all {
		if hash == ro.Status.StableRS {
			smp.stable += n
		} else {
			smp.canary += n
		}
	}
	return smp, nil
}

// at names the stage the following samples belong to.
func (s *hpaSampler) at(stage string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stage = stage
}

func (s *hpaSampler) finish() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// table stops the sampler, takes a last sample, and renders them all as a
// Markdown table.
func (s *hpaSampler) table() (string, []hpaSample) {
	s.finish()
	s.record()
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "| t (s) | stage | stable pods | canary pods | %s | HPA desired | spec.replicas |\n|---|---|---|---|---|---|---|\n", s.resource)
	for _, x := range s.samples {
		fmt.Fprintf(&b, "| %.1f | %s | %d | %d | %d%% | %d | %d |\n", x.at.Seconds(), x.stage, x.stable, x.canary, x.utilization, x.desired, x.target)
	}
	return b.String(), append([]hpaSample(nil), s.samples...)
}

func utilizationOf(h *autoscalingv2.HorizontalPodAutoscaler, res corev1.ResourceName) *int32 {
	for _, m := range h.Status.CurrentMetrics {
		if m.Resource != nil && m.Resource.Name == res {
			return m.Resource.Current.AverageUtilization
		}
	}
	return nil
}

// waitHPA waits until the HPA has measured utilization util and decided
// desired replicas.
func waitHPA(t *testing.T, ns, name string, res corev1.ResourceName, util, desired int32) {
	t.Helper()
	eventually(t, 120*time.Second, fmt.Sprintf("HPA %s measures %s %d%% and wants %d", name, res, util, desired), func() error {
		var h autoscalingv2.HorizontalPodAutoscaler
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &h); err != nil {
			return err
		}
		if u := utilizationOf(&h, res); u == nil || *u != util || h.Status.DesiredReplicas != desired {
			return fmt.Errorf("utilization %v, desired %d", u, h.Status.DesiredReplicas)
		}
		return nil
	})
}

// waitPodMetrics waits until metrics.k8s.io reports every running pod of
// app, so the HPA's next sync counts each one by its measured usage.
func waitPodMetrics(t *testing.T, ns, app string) {
	t.Helper()
	eventually(t, 90*time.Second, "metrics.k8s.io reports every pod of "+app, func() error {
		var pods corev1.PodList
		if err := env.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app": app}); err != nil {
			return err
		}
		raw, stderr, err := kubectl(t, "", "get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/"+ns+"/pods")
		if err != nil {
			return fmt.Errorf("%w: %s", err, stderr)
		}
		var list struct {
			Items []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(raw), &list); err != nil {
			return err
		}
		have := map[string]bool{}
		for _, it := range list.Items {
			have[it.Metadata.Name] = true
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && !have[p.Name] {
				return fmt.Errorf("no metrics for pod %s yet", p.Name)
			}
		}
		return nil
	})
}

// waitEventMessage waits for an Event on the Rollout with this reason and
// exactly this message.
func waitEventMessage(t *testing.T, ns, name, reason, msg string) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("event %s %q on rollout %s", reason, msg, name), func() error {
		var events corev1.EventList
		if err := env.client.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			return err
		}
		var seen []string
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == "Rollout" && e.InvolvedObject.Name == name && e.Reason == reason {
				if e.Message == msg {
					return nil
				}
				seen = append(seen, e.Message)
			}
		}
		return fmt.Errorf("events with reason %s: %q", reason, seen)
	})
}
