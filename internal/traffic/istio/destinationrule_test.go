package istio

import (
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

const destinationRule = `
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: web, namespace: shop}
spec:
  host: web
  trafficPolicy: {tls: {mode: ISTIO_MUTUAL}}
  subsets:
  - name: stable
    labels: {app: web, rollouts-pod-template-hash: old}
  - name: canary
    labels: {app: web}
  - name: preview
  - name: other
    labels: {app: other}
`

func TestSubsetLabels(t *testing.T) {
	dr := rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "canary", StableSubsetName: "stable", AdditionalSubsetNames: []string{"preview"}}
	tests := []struct {
		name    string
		dr      rampv1.IstioDestinationRule
		want    traffic.Route
		result  string // the spec.subsets after the change
		wantErr string
	}{{
		name: "canary, stable and additional subsets",
		dr:   dr,
		want: traffic.Route{StableHash: "s1", CanaryHash: "c1"},
		result: `
- name: stable
  labels: {app: web, rollouts-pod-template-hash: s1}
- name: canary
  labels: {app: web, rollouts-pod-template-hash: c1}
- name: preview
  labels: {rollouts-pod-template-hash: s1}
- name: other
  labels: {app: other}`,
	}, {
		name: "an empty hash leaves its subsets alone",
		dr:   dr,
		want: traffic.Route{StableHash: "s1"},
		result: `
- name: stable
  labels: {app: web, rollouts-pod-template-hash: s1}
- name: canary
  labels: {app: web}
- name: preview
  labels: {rollouts-pod-template-hash: s1}
- name: other
  labels: {app: other}`,
	}, {
		name:    "missing subset",
		dr:      rampv1.IstioDestinationRule{Name: "web", CanarySubsetName: "canary", StableSubsetName: "stable", AdditionalSubsetNames: []string{"gone"}},
		want:    traffic.Route{StableHash: "s1", CanaryHash: "c1"},
		wantErr: `subset "gone" not found`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := parse(t, destinationRule)
			err := subsetLabels("app", tt.dr, tt.want)(u)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertValue(t, spec(u)["subsets"], tt.result)
			if got := u.GetAnnotations()[rampv1.ManagedByRolloutsAnnotation]; got != "app" {
				t.Errorf("managed-by-rollouts annotation = %q, want the Rollout's name", got)
			}
			if got := spec(u)["trafficPolicy"]; got == nil {
				t.Error("trafficPolicy was dropped")
			}
		})
	}
}
