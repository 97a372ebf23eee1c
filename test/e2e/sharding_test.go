//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestShardsInOneNamespaceEachLead: two controllers with different
// --instance-id electing their leaders in the same namespace each hold a
// Lease of their own (ramp-controller-<id>), so both lead at once, and each
// takes the canary labelled with its id to Healthy. With one Lease name for
// all, only one of them would lead.
func TestShardsInOneNamespaceEachLead(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "shards")
	ids := []string{ns + "-a", ns + "-b"}
	for _, id := range ids {
		p, err := startController(ns, "--instance-id", id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.stop)
		eventually(t, 60*time.Second, "shard "+id+" ready and leading", p.readyAndLeading)
	}
	holders := map[string]bool{}
	for _, id := range ids {
		var lease coordinationv1.Lease
		if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "ramp-controller-" + id}, &lease); err != nil {
			t.Fatalf("shard %s: %v", id, err)
		}
		if lease.Spec.HolderIdentity == nil || holders[*lease.Spec.HolderIdentity] {
			t.Fatalf("shard %s: Lease holder %v, want one of its own", id, lease.Spec.HolderIdentity)
		}
		holders[*lease.Spec.HolderIdentity] = true
	}
	for _, id := range ids {
		apply(t, ns, rolloutYAML{name: "web-" + id[len(id)-1:], replicas: 2, instance: id,
			canary: "steps:\n- setWeight: 50\n- pause: {duration: 1s}\n"}.String())
	}
	for _, id := range ids {
		waitHealthy(t, ns, "web-"+id[len(id)-1:], "", 2)
	}
}

// TestShardingExample: examples/sharding renders two controller
// Deployments, each with its own --instance-id, name and pod selector, over
// one namespace, one set of CRDs and one ServiceAccount, and the API server
// accepts it (server-side dry run).
func TestShardingExample(t *testing.T) {
	t.Parallel()
	out, stderr, err := kubectl(t, "", "kustomize", "../../examples/sharding")
	if err != nil {
		t.Fatalf("kustomize examples/sharding: %v\n%s", err, stderr)
	}
	kinds := map[string]int{}
	var ids, selectors []string
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var d appsv1.Deployment
		if err := json.Unmarshal(raw, &d.TypeMeta); err != nil {
			t.Fatal(err)
		}
		if kinds[d.Kind]++; d.Kind != "Deployment" {
			continue
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		selectors = append(selectors, metav1.FormatLabelSelector(d.Spec.Selector))
		for _, a := range d.Spec.Template.Spec.Containers[0].Args {
			if id, ok := strings.CutPrefix(a, "--instance-id="); ok {
				ids = append(ids, id)
			}
		}
	}
	if kinds["Deployment"] != 2 || kinds["Namespace"] != 1 || kinds["ServiceAccount"] != 1 || kinds["CustomResourceDefinition"] != 5 {
		t.Errorf("rendered kinds %v, want 2 Deployments over 1 Namespace, 1 ServiceAccount and the 5 CRDs", kinds)
	}
	if slices.Sort(ids); len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("instance ids %v, want two different ones", ids)
	}
	if len(selectors) != 2 || selectors[0] == selectors[1] {
		t.Errorf("Deployment selectors %v, want two different ones", selectors)
	}
	// The dry run needs the namespace: the install tests create it too and
	// none deletes it.
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ramp-system"}}
	if err := env.client.Create(context.Background(), nsObj); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	if _, stderr, err := kubectl(t, "", "apply", "--server-side", "--dry-run=server", "-k", "../../examples/sharding"); err != nil {
		t.Fatalf("apply --dry-run=server -k examples/sharding: %v\n%s", err, stderr)
	}
}
