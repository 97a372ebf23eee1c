package install

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"
)

// object is one rendered manifest, decoded loosely.
type object map[string]any

func (o object) kind() string { s, _ := o["kind"].(string); return s }

func (o object) name() string { return str(o, "metadata", "name") }

func (o object) namespace() string { return str(o, "metadata", "namespace") }

// get walks o by keys (map keys or, for lists, the name of an element).
func get(o any, keys ...string) any {
	for _, k := range keys {
		switch v := o.(type) {
		case map[string]any:
			o = v[k]
		case object:
			o = v[k]
		case []any:
			o = nil
			for _, e := range v {
				if m, ok := e.(map[string]any); ok && m["name"] == k {
					o = m
				}
			}
		default:
			return nil
		}
	}
	return o
}

func str(o any, keys ...string) string { s, _ := get(o, keys...).(string); return s }

// render renders charts/ramp in namespace ns with Helm's own engine, the
// values in set (dotted paths) over the chart's values.yaml.
func render(t *testing.T, ns string, set map[string]any) []object {
	t.Helper()
	ch, err := loader.Load(filepath.Join(repo, "charts", "ramp"))
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]any{}
	for k, v := range set {
		m := vals
		parts := strings.Split(k, ".")
		for _, p := range parts[:len(parts)-1] {
			if _, ok := m[p]; !ok {
				m[p] = map[string]any{}
			}
			m = m[p].(map[string]any)
		}
		m[parts[len(parts)-1]] = v
	}
	if err := chartutil.ValidateAgainstSchema(ch, vals); err != nil {
		t.Fatal(err)
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "ramp", Namespace: ns, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var objs []object
	for _, n := range names {
		if !strings.HasSuffix(n, ".yaml") {
			continue
		}
		for _, doc := range strings.Split(files[n], "\n---") {
			var o object
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatalf("%s: %v\n%s", n, err, doc)
			}
			if o != nil {
				objs = append(objs, o)
			}
		}
	}
	return objs
}

func find(t *testing.T, objs []object, kind, name string) object {
	t.Helper()
	for _, o := range objs {
		if o.kind() == kind && o.name() == name {
			return o
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

func kinds(objs []object) []string {
	var ks []string
	for _, o := range objs {
		ks = append(ks, o.kind()+"/"+o.name())
	}
	sort.Strings(ks)
	return ks
}

// generatedRules are the rules of config/rbac/role.yaml's role of kind,
// controller-gen's output and the one source of truth for RBAC.
func generatedRules(t *testing.T, kind string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(b), "\n---") {
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if o.kind() == kind {
			return o["rules"]
		}
	}
	t.Fatalf("config/rbac/role.yaml has no %s", kind)
	return nil
}

func args(t *testing.T, objs []object) []string {
	t.Helper()
	var as []string
	for _, a := range get(find(t, objs, "Deployment", "ramp-controller"), "spec", "template", "spec", "containers", "controller", "args").([]any) {
		as = append(as, a.(string))
	}
	return as
}

// TestChartDefaults: with its default values the chart renders what
// config/default installs: the five CRDs, the ServiceAccount, a ClusterRole
// whose rules are config/rbac/role.yaml's, the Lease Role, and the
// Deployment with two replicas, the same flags, non-root and read-only.
func TestChartDefaults(t *testing.T) {
	objs := render(t, "ramp-system", nil)
	want := []string{
		"ClusterRole/ramp-controller", "ClusterRoleBinding/ramp-controller",
		"CustomResourceDefinition/analysisruns.argoproj.io", "CustomResourceDefinition/analysistemplates.argoproj.io",
		"CustomResourceDefinition/clusteranalysistemplates.argoproj.io", "CustomResourceDefinition/experiments.argoproj.io",
		"CustomResourceDefinition/rollouts.argoproj.io", "Deployment/ramp-controller",
		"Role/ramp-controller-leader-election", "RoleBinding/ramp-controller-leader-election", "ServiceAccount/ramp-controller",
	}
	if got := kinds(objs); !slices.Equal(got, want) {
		t.Errorf("rendered %v\nwant %v", got, want)
	}
	if got, want := find(t, objs, "ClusterRole", "ramp-controller")["rules"], generatedRules(t, "ClusterRole"); !reflect.DeepEqual(got, want) {
		t.Errorf("ClusterRole rules differ from config/rbac/role.yaml's:\n%v\n%v", got, want)
	}
	if got, want := find(t, objs, "Role", "ramp-controller-leader-election")["rules"], generatedRules(t, "Role"); !reflect.DeepEqual(got, want) {
		t.Errorf("Lease Role rules differ from config/rbac/role.yaml's: %v, want %v", got, want)
	}
	if ns := find(t, objs, "Role", "ramp-controller-leader-election").namespace(); ns != "ramp-system" {
		t.Errorf("Lease Role in %q, want the release namespace", ns)
	}
	crd := find(t, objs, "CustomResourceDefinition", "rollouts.argoproj.io")
	if str(crd, "metadata", "annotations", "helm.sh/resource-policy") != "keep" {
		t.Error("CRDs are not kept on uninstall")
	}
	d := find(t, objs, "Deployment", "ramp-controller")
	if r := get(d, "spec", "replicas"); r != float64(2) {
		t.Errorf("replicas %v, want 2", r)
	}
	if got, want := args(t, objs), []string{"--leader-elect=true", "--health-probe-bind-address=:8080",
		"--metrics-bind-address=:8090", "--log-format=json"}; !slices.Equal(got, want) {
		t.Errorf("args %v, want %v", got, want)
	}
	c := get(d, "spec", "template", "spec", "containers", "controller")
	if get(d, "spec", "template", "spec", "securityContext", "runAsNonRoot") != true ||
		get(c, "securityContext", "readOnlyRootFilesystem") != true ||
		get(c, "securityContext", "allowPrivilegeEscalation") != false {
		t.Errorf("security context: pod %v, container %v", get(d, "spec", "template", "spec", "securityContext"), get(c, "securityContext"))
	}
	if img := str(c, "image"); img != "ramp-controller:v0.1.0" {
		t.Errorf("image %q, want the chart's appVersion as tag", img)
	}
	if sa := str(d, "spec", "template", "spec", "serviceAccountName"); sa != "ramp-controller" {
		t.Errorf("serviceAccountName %q", sa)
	}
}

// TestChartValues: clusterInstall=false scopes the RBAC to a Role in the
// release namespace (same rules) plus reading ClusterAnalysisTemplates, and
// adds --namespace; extraArgs, replicas,
// image and the metrics Service/ServiceMonitor follow their values.
func TestChartValues(t *testing.T) {
	objs := render(t, "team-a", map[string]any{
		"clusterInstall": false, "installCRDs": false,
		"controller.replicas": 3, "controller.extraArgs": []any{"--kube-api-qps=80", "--log-level=debug"},
		"controller.image.registry": "ghcr.io", "controller.image.repository": "acme/ramp", "controller.image.tag": "v9",
		"controller.metrics.enabled": true, "controller.metrics.serviceMonitor.enabled": true,
		"controller.nodeSelector": map[string]any{"pool": "system"},
	})
	want := []string{"ClusterRole/ramp-controller-team-a-cluster-templates", "ClusterRoleBinding/ramp-controller-team-a-cluster-templates",
		"Deployment/ramp-controller", "Role/ramp-controller", "Role/ramp-controller-leader-election",
		"RoleBinding/ramp-controller", "RoleBinding/ramp-controller-leader-election", "Service/ramp-controller-metrics",
		"ServiceAccount/ramp-controller", "ServiceMonitor/ramp-controller"}
	if got := kinds(objs); !slices.Equal(got, want) {
		t.Errorf("rendered %v\nwant %v", got, want)
	}
	role := find(t, objs, "Role", "ramp-controller")
	if role.namespace() != "team-a" || !reflect.DeepEqual(role["rules"], generatedRules(t, "ClusterRole")) {
		t.Errorf("namespaced Role in %q with rules %v, want team-a and config/rbac/role.yaml's", role.namespace(), role["rules"])
	}
	// The one cluster-scoped kind the controller watches, and nothing else
	// cluster-wide.
	wantTemplates := []any{map[string]any{"apiGroups": []any{"argoproj.io"}, "resources": []any{"clusteranalysistemplates"},
		"verbs": []any{"get", "list", "watch"}}}
	if got := find(t, objs, "ClusterRole", "ramp-controller-team-a-cluster-templates")["rules"]; !reflect.DeepEqual(got, wantTemplates) {
		t.Errorf("namespaced install's ClusterRole rules %v, want %v", got, wantTemplates)
	}
	if got := args(t, objs); !slices.Equal(got[4:], []string{"--namespace=team-a", "--kube-api-qps=80", "--log-level=debug"}) {
		t.Errorf("args %v", got)
	}
	d := find(t, objs, "Deployment", "ramp-controller")
	if get(d, "spec", "replicas") != float64(3) || str(d, "spec", "template", "spec", "nodeSelector", "pool") != "system" {
		t.Errorf("replicas %v, nodeSelector %v", get(d, "spec", "replicas"), get(d, "spec", "template", "spec", "nodeSelector"))
	}
	if img := str(d, "spec", "template", "spec", "containers", "controller", "image"); img != "ghcr.io/acme/ramp:v9" {
		t.Errorf("image %q", img)
	}
}

// TestChartReadsConfig: the chart's CRDs and RBAC rules are config/'s
// own files (controller-gen's output) through symbolic links, not copies
// that could drift; Helm's loader follows them and helm package stores
// their content.
func TestChartReadsConfig(t *testing.T) {
	for link, target := range map[string]string{
		"charts/ramp/files/role.yaml": "config/rbac/role.yaml",
		"charts/ramp/files/crds":      "config/crd/bases",
	} {
		got, errL := filepath.EvalSymlinks(filepath.Join(repo, link))
		want, errT := filepath.EvalSymlinks(filepath.Join(repo, target))
		if fi, err := os.Lstat(filepath.Join(repo, link)); err != nil || fi.Mode()&os.ModeSymlink == 0 || errL != nil || errT != nil || got != want {
			t.Errorf("%s is not a symbolic link to %s (%v %v %v)", link, target, err, errL, errT)
		}
	}
}
