package controlplane

import (
	"fmt"
	"os"
	"strings"

	"github.com/ramp-rollouts/ramp/test/cluster/pki"
)

// writePKI generates (or reuses) every certificate the components need.
func (c Config) writePKI() error {
	dir := c.pki("")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := pki.LoadOrCreateCA(dir, "ca")
	if err != nil {
		return err
	}
	fp, err := pki.LoadOrCreateCA(dir, "front-proxy-ca")
	if err != nil {
		return err
	}
	leaves := []struct {
		ca *pki.CA
		l  pki.Leaf
	}{
		{ca, pki.Leaf{Name: "apiserver", CN: "kube-apiserver", Server: true,
			Hosts: []string{"127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "10.96.0.1"}}},
		{ca, pki.Leaf{Name: "admin", CN: "ramp-admin", Orgs: []string{"system:masters"}, Client: true}},
		{ca, pki.Leaf{Name: "kubelet", CN: "kwok-kubelet", Server: true, Hosts: []string{"127.0.0.1", "localhost"}}},
		{fp, pki.Leaf{Name: "front-proxy-client", CN: "front-proxy-client", Client: true}},
	}
	for _, x := range leaves {
		if _, err := x.ca.Issue(dir, x.l); err != nil {
			return fmt.Errorf("issue %s: %w", x.l.Name, err)
		}
	}
	_, _, err = pki.ServiceAccountKey(dir)
	return err
}

// writeKubeconfig writes the admin kubeconfig (client certificate auth).
func (c Config) writeKubeconfig() error {
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: ramp-local
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: ramp-admin
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: ramp-local
  context: {cluster: ramp-local, user: ramp-admin, namespace: default}
current-context: ramp-local
`, c.APIServerURL(), c.pki("ca.crt"), c.pki("admin.crt"), c.pki("admin.key"))
	return os.WriteFile(c.Kubeconfig(), []byte(kc), 0o600)
}

// writeKwokConfig writes kwok's configuration: pod resource usage taken from
// the kwok.x-k8s.io/usage-{cpu,memory} pod annotations, one Metric per node
// serving the kubelet's /metrics/resource endpoint for metrics-server, and
// the pod lifecycle (podStages: Job pods succeed or fail on request). kwok
// reads it only at start; Up restarts kwok when its content changes.
func (c Config) writeKwokConfig() error {
	var b strings.Builder
	b.WriteString(usageFromAnnotation)
	for i := 0; i < c.Nodes; i++ {
		fmt.Fprintf(&b, resourceMetric, nodeName(i))
	}
	b.WriteString(podStages)
	return os.WriteFile(c.kwokConfig(), []byte(b.String()), 0o644)
}

func nodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

const usageFromAnnotation = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata:
  name: usage-from-annotation
spec:
  usages:
  - usage:
      cpu:
        expression: |
          "kwok.x-k8s.io/usage-cpu" in pod.metadata.annotations
          ? Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-cpu"])
          : Quantity("1m")
      memory:
        expression: |
          "kwok.x-k8s.io/usage-memory" in pod.metadata.annotations
          ? Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-memory"])
          : Quantity("1Mi")
`

const resourceMetric = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata:
  name: %s
spec:
  path: /metrics/resource
  metrics:
  - name: scrape_error
    dimension: node
    kind: gauge
    help: "1 if there was an error while getting metrics from the node, 0 otherwise"
    value: "0"
  - name: node_cpu_usage_seconds_total
    dimension: node
    kind: counter
    help: "Cumulative cpu time consumed by the node in core-seconds"
    value: 'node.CumulativeUsage("cpu")'
  - name: node_memory_working_set_bytes
    dimension: node
    kind: gauge
    help: "Current working set of the node in bytes"
    value: 'node.Usage("memory")'
  - name: container_start_time_seconds
    dimension: container
    kind: gauge
    help: "Start time of the container since unix epoch in seconds"
    labels:
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: pod.SinceSecond()
  - name: container_cpu_usage_seconds_total
    dimension: container
    kind: counter
    help: "Cumulative cpu time consumed by the container in core-seconds"
    labels:
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: 'pod.CumulativeUsage("cpu", container.name)'
  - name: container_memory_working_set_bytes
    dimension: container
    kind: gauge
    help: "Current working set of the container in bytes"
    labels:
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: 'pod.Usage("memory", container.name)'
  - name: pod_cpu_usage_seconds_total
    dimension: pod
    kind: counter
    help: "Cumulative cpu time consumed by the pod in core-seconds"
    labels:
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: 'pod.CumulativeUsage("cpu")'
  - name: pod_memory_working_set_bytes
    dimension: pod
    kind: gauge
    help: "Current working set of the pod in bytes"
    labels:
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: 'pod.Usage("memory")'
`
