package builtin

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/traffic"
)

// TestRouters pins what this build ships: the routers and the capabilities
// the planner checks steps against (the former traffic.Caps table), all
// read from the routers' own definitions.
func TestRouters(t *testing.T) {
	type caps struct{ header, mirror, headerMatch bool }
	want := map[string]caps{
		"alb":                      {header: true, headerMatch: true},
		"argoproj-labs/gatewayAPI": {header: true, mirror: true},
		"istio":                    {header: true, mirror: true},
		"nginx":                    {header: true, headerMatch: true},
		"smi":                      {},
	}
	got := map[string]caps{}
	for _, d := range traffic.Definitions() {
		got[d.Name] = caps{d.Caps.HeaderRoutes, d.Caps.MirrorRoutes, d.Caps.HeaderMatch != nil}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("registered routers and capabilities\n got %v\nwant %v", got, want)
	}
}

// TestProviders pins the metric providers this build ships.
func TestProviders(t *testing.T) {
	if got, want := provider.Supported(), []string{"cloudWatch", "datadog", "graphite", "influxdb", "job", "judge", "kayenta", "newRelic", "prometheus", "skywalking", "wavefront", "web"}; !slices.Equal(got, want) {
		t.Errorf("provider.Supported() = %v, want %v", got, want)
	}
}

// TestRouterNamesAreConfigurable: every router is registered under a name
// a trafficRouting block can select (traffic.Configured: a field's name, or
// a plugin's "<org>/<name>" key), so that none is unreachable.
func TestRouterNamesAreConfigurable(t *testing.T) {
	fields := map[string]bool{}
	tr := reflect.TypeFor[rampv1.RolloutTrafficRouting]()
	for i := range tr.NumField() {
		f := tr.Field(i)
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
			continue // managedRoutes, maxTrafficWeight, plugins
		}
		v := reflect.New(tr).Elem()
		v.Field(i).Set(reflect.New(f.Type.Elem()))
		for _, name := range traffic.Configured(v.Addr().Interface().(*rampv1.RolloutTrafficRouting)) {
			fields[name] = true
		}
	}
	for _, name := range traffic.Names() {
		if !fields[name] && strings.Count(name, "/") != 1 {
			t.Errorf("router %q is neither a trafficRouting field (%v) nor a plugin key", name, fields)
		}
	}
}

// TestProviderNamesAreSelectable: every provider is registered under the
// name provider.Name gives the metric.provider field it measures.
func TestProviderNamesAreSelectable(t *testing.T) {
	fields := map[string]bool{}
	mp := reflect.TypeFor[rampv1.MetricProvider]()
	for i := range mp.NumField() {
		f := mp.Field(i)
		if f.Type.Kind() != reflect.Pointer {
			continue // plugin
		}
		v := reflect.New(mp).Elem()
		v.Field(i).Set(reflect.New(f.Type.Elem()))
		fields[provider.Name(v.Interface().(rampv1.MetricProvider))] = true
	}
	for _, name := range provider.Supported() {
		if !fields[name] {
			t.Errorf("provider %q is not the name of a metric.provider field (%v)", name, fields)
		}
	}
}

// TestRouterRBAC holds the routers' +kubebuilder:rbac markers (in their own
// packages, under internal/traffic) to their definitions: every kind a
// router declares can be read, watched and updated; the markers grant
// nothing on other resources; and no marker outside internal/traffic
// grants a route kind.
func TestRouterRBAC(t *testing.T) {
	kinds := map[string]bool{} // "<group>/<resource>"
	for _, d := range traffic.Definitions() {
		for _, k := range d.Kinds {
			kinds[k.Group+"/"+k.Resource] = true
		}
	}
	inTraffic := rbacMarkers(t, "../traffic")
	for gr := range kinds {
		for _, verb := range []string{"get", "list", "watch", "update"} {
			if !inTraffic[gr][verb] {
				t.Errorf("%s: no +kubebuilder:rbac marker under internal/traffic grants %s", gr, verb)
			}
		}
	}
	for gr := range inTraffic {
		if !kinds[gr] {
			t.Errorf("%s: granted by a marker under internal/traffic, but no router declares it among its Kinds", gr)
		}
	}
	for _, root := range []string{"..", "../../cmd"} {
		for gr := range rbacMarkers(t, root, "../traffic") {
			if kinds[gr] {
				t.Errorf("%s: a route kind granted outside internal/traffic (under %s): it belongs next to its router", gr, root)
			}
		}
	}
}

// rbacMarkers reads the +kubebuilder:rbac markers of the Go files under
// root (but skip): verbs by "<group>/<resource>".
func rbacMarkers(t *testing.T, root string, skip ...string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && slices.Contains(skip, path) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }() // read only: a close error loses nothing
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "// +kubebuilder:rbac:")
			if !ok {
				continue
			}
			args := map[string][]string{}
			for _, kv := range strings.Split(m, ",") {
				k, v, _ := strings.Cut(kv, "=")
				args[k] = strings.Split(strings.Trim(v, `"`), ";")
			}
			for _, g := range args["groups"] {
				for _, r := range args["resources"] {
					gr := strings.Trim(g, `"`) + "/" + r
					if out[gr] == nil {
						out[gr] = map[string]bool{}
					}
					for _, v := range args["verbs"] {
						out[gr][v] = true
					}
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
