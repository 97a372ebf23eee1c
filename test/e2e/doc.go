// Package e2e holds Ramp's end-to-end tests. They run (build tag e2e) against
// the real local control plane started by `make test` (test/cluster): a real
// kube-apiserver with etcd, controller-manager, scheduler, kwok nodes and
// metrics-server, with the real ramp-controller binary. Each test works in its
// own namespace and tests run in parallel. Nothing here is faked.
package e2e
