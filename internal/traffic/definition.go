package traffic

import (
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/registry"
)

// Definition is everything Ramp knows of a router without running it: the
// planner, lint and the controller's watches read it from the registry
// (Register, Lookup). Each router package declares its own, next to its
// RBAC markers.
type Definition struct {
	// Name is the key the router is configured under in
	// spec.strategy.canary.trafficRouting ("istio"; a plugin's key for a
	// plugin, as "argoproj-labs/gatewayAPI").
	Name string
	// Caps are the managed routes it can express.
	Caps Capabilities
	// Kinds are the kinds of object it reads and writes. The controller
	// watches each one the cluster serves; the router's
	// +kubebuilder:rbac markers grant them.
	Kinds []Kind
	// CRDs say where the project behind the kinds publishes their
	// CustomResourceDefinitions; nil when the kinds are built into
	// Kubernetes. Only the local control plane reads it (hack/routers
	// installs them); the controller never does.
	CRDs *CRDs
}

// Capabilities say which managed routes a router can express. The planner
// rejects a setHeaderRoute or setMirrorRoute step a configured router
// cannot express, before anything runs; routers never emulate one.
type Capabilities struct {
	HeaderRoutes bool
	MirrorRoutes bool
	// HeaderMatch, when set, reports header matches of a setHeaderRoute the
	// router cannot express although it routes on headers: the field below
	// setHeaderRoute and why (".match: ..."), "" when it can. It is pure.
	HeaderMatch func([]rampv1.HeaderRoutingMatch) string
}

// Kind is one kind of object a router reads or writes.
type Kind struct {
	schema.GroupKind
	// Resource is its plural resource name ("httproutes"), as RBAC rules
	// and CRD names spell it.
	Resource string
}

// CRD is the name of the CustomResourceDefinition serving k:
// "<resource>.<group>".
func (k Kind) CRD() string { return k.Resource + "." + k.Group }

// CRDs are CustomResourceDefinition files in a pinned Go module (fetched
// through the module proxy and checked against the checksum database).
type CRDs struct {
	// Module is the module path and version: "sigs.k8s.io/gateway-api@v1.4.1".
	Module string
	// Files are paths inside the module.
	Files []string
}

// entry is a registered router: its definition and how to build it.
type entry struct {
	def   Definition
	build func(deps any) (Router, error)
}

var definitions = registry.New[entry]("traffic router")

// Register adds a router to the registry under d.Name, with the constructor
// the controller builds it with (Build). Call it from the router package's
// init; an invalid definition or a name registered twice panics, as the
// build itself is wrong.
//
// newRouter's argument type is a type parameter because this package may
// not name a client: the planner imports it and must stay pure. Build
// checks the argument's type when the controller starts.
func Register[C any, R Router](d Definition, newRouter func(C) R) {
	if err := d.validate(); err != nil {
		panic(err)
	}
	build := func(deps any) (Router, error) {
		c, ok := deps.(C)
		if !ok && deps != nil {
			return nil, fmt.Errorf("traffic router %q is built with a %v, got %T", d.Name, reflect.TypeFor[C](), deps)
		}
		return newRouter(c), nil
	}
	if err := definitions.Register(d.Name, entry{def: d, build: build}); err != nil {
		panic(err)
	}
}

func (d Definition) validate() error {
	if d.Name == "" {
		return fmt.Errorf("traffic router registered without a name")
	}
	if len(d.Kinds) == 0 {
		return fmt.Errorf("traffic router %q declares no kinds", d.Name)
	}
	for _, k := range d.Kinds {
		if k.Kind == "" || k.Resource == "" {
			return fmt.Errorf("traffic router %q: kind %+v needs Kind and Resource", d.Name, k)
		}
	}
	if d.CRDs != nil && (d.CRDs.Module == "" || len(d.CRDs.Files) == 0) {
		return fmt.Errorf("traffic router %q: CRDs need a module and files", d.Name)
	}
	return nil
}

// Lookup returns the definition of the router registered under name; an
// unknown name is an error that lists the registered ones.
func Lookup(name string) (Definition, error) {
	e, err := definitions.Get(name)
	return e.def, err
}

// Names lists the registered routers, sorted.
func Names() []string { return definitions.Names() }

// Definitions lists the registered routers, sorted by name.
func Definitions() []Definition {
	var out []Definition
	for _, name := range definitions.Names() {
		if e, err := definitions.Get(name); err == nil {
			out = append(out, e.def)
		}
	}
	return out
}

// Build constructs every registered router with deps (the controller's
// client) into a registry the controller looks routers up in by name.
func Build(deps any) (*registry.Registry[Router], error) {
	reg := NewRegistry()
	for _, name := range definitions.Names() {
		e, err := definitions.Get(name)
		if err != nil {
			return nil, err
		}
		rt, err := e.build(deps)
		if err != nil {
			return nil, err
		}
		if err := reg.Register(name, rt); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// KindsOf lists, each once and sorted, the kinds the named routers read and
// write; an unknown name is an error.
func KindsOf(names []string) ([]Kind, error) {
	seen := map[schema.GroupKind]bool{}
	var out []Kind
	for _, name := range names {
		d, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		for _, k := range d.Kinds {
			if !seen[k.GroupKind] {
				seen[k.GroupKind] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}
