// Package controlplane starts and stops the real local Kubernetes control
// plane Ramp is tested on: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok (nodes and pod lifecycle, emulated kubelet metrics) and
// metrics-server, all on 127.0.0.1, with certificates generated at start-up.
package controlplane

import (
	"fmt"
	"path/filepath"
	"time"
)

// Config says where the binaries are, where state goes and which ports to use.
type Config struct {
	BinDir   string // cached component binaries
	StateDir string // certificates, etcd data, pid files, logs, kubeconfig
	PortBase int    // ports PortBase..PortBase+9 are used
	// HPASyncPeriod is the HPA controller's sync period (short in tests).
	HPASyncPeriod time.Duration
	// Nodes is how many kwok nodes to create.
	Nodes int
}

// Ports of each component, derived from PortBase.
func (c Config) etcdClient() int    { return c.PortBase }
func (c Config) etcdPeer() int      { return c.PortBase + 1 }
func (c Config) apiserver() int     { return c.PortBase + 2 }
func (c Config) kcm() int           { return c.PortBase + 3 }
func (c Config) scheduler() int     { return c.PortBase + 4 }
func (c Config) kubelet() int       { return c.PortBase + 5 }
func (c Config) metricsServer() int { return c.PortBase + 6 }

// Kubeconfig is the admin kubeconfig written by Up.
func (c Config) Kubeconfig() string { return filepath.Join(c.StateDir, "kubeconfig") }

func (c Config) pki(name string) string { return filepath.Join(c.StateDir, "pki", name) }
func (c Config) bin(name string) string { return filepath.Join(c.BinDir, name) }

// APIServerURL is the address of the local kube-apiserver.
func (c Config) APIServerURL() string { return fmt.Sprintf("https://127.0.0.1:%d", c.apiserver()) }
