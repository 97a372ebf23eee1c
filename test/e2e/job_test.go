//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// exitCodeAnnotation on a Job's pod template makes kwok end its pods Failed
// with that exit code (test/cluster/controlplane/podstages.go); without it
// they end Succeeded.
const exitCodeAnnotation = "test.ramp.dev/exit-code"

// job returns a Job with one attempt (backoffLimit 0) whose pods carry the
// given annotations.
func job(ns, name string, annotations map[string]string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "main", Image: "registry.example/check:v1"}},
				},
			},
		},
	}
}

// TestJobPodOutcome: Job pods on kwok really end, as the Job provider and
// analysis tests need: without the exit-code annotation the Job completes;
// with exit code 1 its pod fails with that code and the Job fails.
func TestJobPodOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(t, "job")
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		condition   batchv1.JobConditionType
		phase       corev1.PodPhase
		exitCode    int32
	}{
		{"succeeds", nil, batchv1.JobComplete, corev1.PodSucceeded, 0},
		{"fails", map[string]string{exitCodeAnnotation: "1"}, batchv1.JobFailed, corev1.PodFailed, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			if err := env.client.Create(ctx, job(ns, tc.name, tc.annotations)); err != nil {
				t.Fatal(err)
			}
			eventually(t, 30*time.Second, fmt.Sprintf("Job %s has condition %s", tc.name, tc.condition), func() error {
				var j batchv1.Job
				if err := env.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: tc.name}, &j); err != nil {
					return err
				}
				for _, c := range j.Status.Conditions {
					if c.Type == tc.condition && c.Status == corev1.ConditionTrue {
						return nil
					}
				}
				return fmt.Errorf("conditions %v", j.Status.Conditions)
			})
			t.Logf("Job %s: %s after %s", tc.name, tc.condition, time.Since(began).Round(time.Millisecond))

			var pods corev1.PodList
			if err := env.client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"job-name": tc.name}); err != nil {
				t.Fatal(err)
			}
			if len(pods.Items) != 1 {
				t.Fatalf("%d pods for Job %s, want 1", len(pods.Items), tc.name)
			}
			pod := pods.Items[0]
			if pod.Status.Phase != tc.phase || len(pod.Status.ContainerStatuses) != 1 {
				t.Fatalf("pod %s: phase %s, %d container statuses; want %s and 1", pod.Name, pod.Status.Phase, len(pod.Status.ContainerStatuses), tc.phase)
			}
			term := pod.Status.ContainerStatuses[0].State.Terminated
			if term == nil || term.ExitCode != tc.exitCode {
				t.Errorf("pod %s container state %+v, want terminated with exit code %d", pod.Name, pod.Status.ContainerStatuses[0].State, tc.exitCode)
			}
		})
	}
}
