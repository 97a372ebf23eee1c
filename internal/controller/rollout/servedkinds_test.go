package rollout

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// mapper is a RESTMapper that serves the kinds in served and answers err
// for every other kind.
type mapper struct {
	meta.RESTMapper
	served map[schema.GroupKind]string
	err    error
}

func (m mapper) RESTMapping(gk schema.GroupKind, _ ...string) (*meta.RESTMapping, error) {
	if v, ok := m.served[gk]; ok {
		return &meta.RESTMapping{GroupVersionKind: gk.WithVersion(v)}, nil
	}
	return nil, m.err
}

// TestServedKindsSkipsOnlyUnservedKinds: a kind the server does not serve
// (NoKindMatch) loses its watch with a log line; any other mapping error
// (discovery down, forbidden) is returned so that the manager does not start
// silently without the route watches.
func TestServedKindsSkipsOnlyUnservedKinds(t *testing.T) {
	route := schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}
	missing := schema.GroupKind{Group: "split.smi-spec.io", Kind: "TrafficSplit"}
	served := map[schema.GroupKind]string{route: "v1"}

	noMatch := &meta.NoKindMatchError{GroupKind: missing}
	got, err := servedKinds(mapper{served: served, err: noMatch}, []schema.GroupKind{route, missing}, logr.Discard())
	if err != nil {
		t.Fatalf("a kind that is not served: error %v, want it skipped", err)
	}
	if len(got) != 1 || got[0] != route.WithVersion("v1") {
		t.Errorf("served kinds = %v, want only %s/v1", got, route)
	}

	discovery := errors.New("the server is currently unable to handle the request")
	_, err = servedKinds(mapper{served: served, err: discovery}, []schema.GroupKind{route, missing}, logr.Discard())
	if !errors.Is(err, discovery) || !strings.Contains(err.Error(), "TrafficSplit.split.smi-spec.io") {
		t.Errorf("a discovery failure: error %v, want it returned naming the kind", err)
	}
}
