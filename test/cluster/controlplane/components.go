package controlplane

import (
	"fmt"
	"path/filepath"
)

// component is one process of the control plane.
type component struct {
	name  string
	ports []int // loopback ports it listens on
	args  []string
}

// components lists the processes in start order.
func (c Config) components() []component {
	kc := c.Kubeconfig()
	return []component{
		{"etcd", []int{c.etcdClient(), c.etcdPeer()}, []string{
			"--name=ramp", "--data-dir=" + filepath.Join(c.StateDir, "etcd"),
			fmt.Sprintf("--listen-client-urls=http://127.0.0.1:%d", c.etcdClient()),
			fmt.Sprintf("--advertise-client-urls=http://127.0.0.1:%d", c.etcdClient()),
			fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", c.etcdPeer()),
			fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", c.etcdPeer()),
			fmt.Sprintf("--initial-cluster=ramp=http://127.0.0.1:%d", c.etcdPeer()),
			"--listen-metrics-urls=", "--log-level=warn", "--unsafe-no-fsync=true",
			"--quota-backend-bytes=4294967296",
		}},
		{"kube-apiserver", []int{c.apiserver()}, []string{
			fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", c.etcdClient()),
			"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
			fmt.Sprintf("--secure-port=%d", c.apiserver()),
			"--tls-cert-file=" + c.pki("apiserver.crt"), "--tls-private-key-file=" + c.pki("apiserver.key"),
			"--client-ca-file=" + c.pki("ca.crt"),
			"--service-account-key-file=" + c.pki("sa.pub"),
			"--service-account-signing-key-file=" + c.pki("sa.key"),
			"--service-account-issuer=https://kubernetes.default.svc",
			"--service-cluster-ip-range=10.96.0.0/16",
			"--authorization-mode=Node,RBAC",
			"--allow-privileged=true",
			"--requestheader-client-ca-file=" + c.pki("front-proxy-ca.crt"),
			"--requestheader-allowed-names=front-proxy-client",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
			"--requestheader-group-headers=X-Remote-Group",
			"--requestheader-username-headers=X-Remote-User",
			"--proxy-client-cert-file=" + c.pki("front-proxy-client.crt"),
			"--proxy-client-key-file=" + c.pki("front-proxy-client.key"),
			"--kubelet-client-certificate=" + c.pki("admin.crt"),
			"--kubelet-client-key=" + c.pki("admin.key"),
			"--kubelet-certificate-authority=" + c.pki("ca.crt"),
			"--profiling=false", "--v=0",
		}},
		{"kube-controller-manager", []int{c.kcm()}, []string{
			"--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
			"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", c.kcm()),
			"--cert-dir=" + c.pki("kcm"),
			"--leader-elect=false",
			"--service-account-private-key-file=" + c.pki("sa.key"),
			"--root-ca-file=" + c.pki("ca.crt"),
			"--use-service-account-credentials=true",
			"--controllers=*,-nodeipam,-cloud-node-lifecycle,-service,-route,-ttl",
			"--node-monitor-grace-period=2m", // kwok heartbeats through its Lease; never flap pods NotReady
			fmt.Sprintf("--horizontal-pod-autoscaler-sync-period=%s", c.HPASyncPeriod),
			"--horizontal-pod-autoscaler-downscale-stabilization=30s",
			"--concurrent-replicaset-syncs=10", "--kube-api-qps=200", "--kube-api-burst=400",
			"--profiling=false", "--v=0",
		}},
		{"kube-scheduler", []int{c.scheduler()}, []string{
			"--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
			"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", c.scheduler()),
			"--cert-dir=" + c.pki("scheduler"),
			"--leader-elect=false", "--kube-api-qps=200", "--kube-api-burst=400",
			"--profiling=false", "--v=0",
		}},
		{"kwok", []int{c.kubelet()}, []string{
			"--kubeconfig=" + kc, "--manage-all-nodes=true",
			"--node-ip=127.0.0.1", fmt.Sprintf("--node-port=%d", c.kubelet()),
			"--tls-cert-file=" + c.pki("kubelet.crt"), "--tls-private-key-file=" + c.pki("kubelet.key"),
			fmt.Sprintf("--server-address=127.0.0.1:%d", c.kubelet()), // serves the kubelet API (TLS) on loopback
			"--cidr=10.244.0.0/16", "--node-lease-duration-seconds=40",
			"--config=" + c.kwokConfig(),
		}},
		{"metrics-server", []int{c.metricsServer()}, []string{
			"--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
			"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", c.metricsServer()),
			"--cert-dir=" + c.pki("metrics-server"),
			"--kubelet-use-node-status-port", "--kubelet-insecure-tls",
			"--kubelet-preferred-address-types=InternalIP",
			"--metric-resolution=10s", "--kubelet-request-timeout=5s",
		}},
	}
}

// inputs lists the files a component reads only when it starts: a change to
// their content restarts it on the next Up, like a change to its arguments.
func (c Config) inputs(name string) []string {
	if name == "kwok" {
		return []string{c.kwokConfig()}
	}
	return nil
}

func (c Config) kwokConfig() string { return filepath.Join(c.StateDir, "kwok.yaml") }
