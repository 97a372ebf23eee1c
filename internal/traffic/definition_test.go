package traffic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// emptyRegistry gives the test a registry of its own, restored afterwards.
func emptyRegistry(t *testing.T) {
	saved := definitions
	definitions = registry.New[entry]("traffic router")
	t.Cleanup(func() { definitions = saved })
}

// fakeClient stands for the controller's client, which this package does
// not name.
type fakeClient struct{ id string }

type fakeRouter struct{ c *fakeClient }

func (fakeRouter) Check(*rampv1.Rollout) error { return nil }
func (fakeRouter) Refs(*rampv1.Rollout) []Ref  { return nil }
func (fakeRouter) Sync(context.Context, *rampv1.Rollout, Route) (bool, error) {
	return true, nil
}

func newFake(c *fakeClient) fakeRouter { return fakeRouter{c: c} }

var (
	ingress = Kind{GroupKind: schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}, Resource: "ingresses"}
	split   = Kind{GroupKind: schema.GroupKind{Group: "split.smi-spec.io", Kind: "TrafficSplit"}, Resource: "trafficsplits"}
)

func TestRegisterAndLookup(t *testing.T) {
	emptyRegistry(t)
	Register(Definition{Name: "nginx", Caps: Capabilities{HeaderRoutes: true}, Kinds: []Kind{ingress}}, newFake)
	Register(Definition{Name: "alb", Caps: Capabilities{HeaderRoutes: true}, Kinds: []Kind{ingress}}, newFake)
	Register(Definition{Name: "smi", Kinds: []Kind{split}, CRDs: &CRDs{Module: "m@v1", Files: []string{"split.yaml"}}}, newFake)

	d, err := Lookup("nginx")
	if err != nil || d.Name != "nginx" || !d.Caps.HeaderRoutes || d.Caps.MirrorRoutes {
		t.Errorf("Lookup(nginx) = %+v, %v", d, err)
	}
	if _, err := Lookup("traefik"); err == nil || !strings.Contains(err.Error(), `unknown traffic router "traefik" (available: [alb nginx smi])`) {
		t.Errorf("Lookup(traefik) error = %v, want unknown with the available names", err)
	}
	if got := Names(); !slices.Equal(got, []string{"alb", "nginx", "smi"}) {
		t.Errorf("Names = %v", got)
	}
	var names []string
	for _, d := range Definitions() {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, Names()) {
		t.Errorf("Definitions in order %v, want %v", names, Names())
	}
	kinds, err := KindsOf([]string{"smi", "nginx", "alb"})
	if err != nil || !slices.Equal(kinds, []Kind{ingress, split}) {
		t.Errorf("KindsOf = %v, %v; want Ingress once, then TrafficSplit", kinds, err)
	}
	if _, err := KindsOf([]string{"alb", "traefik"}); err == nil {
		t.Error("KindsOf with an unknown router: no error")
	}
	if got := split.CRD(); got != "trafficsplits.split.smi-spec.io" {
		t.Errorf("CRD() = %q", got)
	}
}

func TestRegisterPanicsOnABadDefinition(t *testing.T) {
	for _, tc := range []struct {
		name string
		defs []Definition
		want string
	}{
		{name: "duplicate", defs: []Definition{{Name: "alb", Kinds: []Kind{ingress}}, {Name: "alb", Kinds: []Kind{ingress}}},
			want: `traffic router "alb" registered twice`},
		{name: "no name", defs: []Definition{{Kinds: []Kind{ingress}}}, want: "without a name"},
		{name: "no kinds", defs: []Definition{{Name: "alb"}}, want: "declares no kinds"},
		{name: "kind without resource", defs: []Definition{{Name: "alb", Kinds: []Kind{{GroupKind: ingress.GroupKind}}}}, want: "needs Kind and Resource"},
		{name: "CRDs without files", defs: []Definition{{Name: "smi", Kinds: []Kind{split}, CRDs: &CRDs{Module: "m@v1"}}}, want: "need a module and files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emptyRegistry(t)
			defer func() {
				r := recover()
				if err, ok := r.(error); !ok || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("panic %v, want an error with %q", r, tc.want)
				}
			}()
			for _, d := range tc.defs {
				Register(d, newFake)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	emptyRegistry(t)
	Register(Definition{Name: "alb", Kinds: []Kind{ingress}}, newFake)
	Register(Definition{Name: "smi", Kinds: []Kind{split}}, newFake)

	c := &fakeClient{id: "mgr"}
	reg, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reg.Names(), []string{"alb", "smi"}) {
		t.Errorf("built %v", reg.Names())
	}
	rt, err := reg.Get("smi")
	if err != nil || rt.(fakeRouter).c != c {
		t.Errorf("smi built with %v (%v), want the client given to Build", rt, err)
	}
	if _, err := reg.Get("istio"); err == nil {
		t.Error("Get(istio) of a build without it: no error")
	}
	if _, err := Build("not a client"); err == nil || !strings.Contains(err.Error(), `traffic router "alb" is built with a *traffic.fakeClient, got string`) {
		t.Errorf("Build with the wrong argument: error %v", err)
	}
	if _, err := Build(nil); err != nil { // tests build routers without a client
		t.Errorf("Build(nil): %v", err)
	}
}
