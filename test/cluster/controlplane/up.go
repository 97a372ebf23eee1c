package controlplane

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/ramp-rollouts/ramp/test/cluster/proc"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Up starts every component that is not already running and waits until the
// control plane can run pods and serve metrics.k8s.io. It is idempotent: on a
// running control plane it only checks health.
func Up(ctx context.Context, c Config, out io.Writer) error {
	start := time.Now()
	if err := os.MkdirAll(c.StateDir, 0o755); err != nil {
		return err
	}
	if err := c.writePKI(); err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	if err := c.writeKubeconfig(); err != nil {
		return err
	}
	if err := c.writeKwokConfig(); err != nil {
		return err
	}
	procs := proc.Dir(c.StateDir)
	for _, comp := range c.components() {
		cmd := proc.Cmd{Bin: c.bin(comp.name), Args: comp.args, Inputs: c.inputs(comp.name)}
		if procs.CurrentCmd(comp.name, cmd) {
			continue
		}
		// Ours but with an outdated command line: stop it before checking ports.
		if err := procs.Stop(comp.name, 10*time.Second); err != nil {
			return err
		}
		if err := portsFree(comp.ports); err != nil {
			return fmt.Errorf("cannot start %s: %w (another control plane on these ports? use another --port-base)", comp.name, err)
		}
		progress(out, "starting %s\n", comp.name)
		if err := procs.StartCmd(comp.name, cmd); err != nil {
			return err
		}
		if err := c.waitHealthy(ctx, comp.name, func() bool { return procs.Running(comp.name) }); err != nil {
			return fmt.Errorf("%s did not become healthy (log: %s): %w", comp.name, procs.Log(comp.name), err)
		}
	}
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	if err := c.ensureObjects(ctx, cs); err != nil {
		return err
	}
	progress(out, "local control plane ready in %s (kubeconfig: %s)\n", time.Since(start).Round(100*time.Millisecond), c.Kubeconfig())
	return nil
}

// Down stops every process started in the state directory, in reverse order.
func Down(c Config, out io.Writer) error {
	procs := proc.Dir(c.StateDir)
	known := map[string]bool{}
	comps := c.components()
	for _, comp := range comps {
		known[comp.name] = true
	}
	// Extra processes (e.g. the controller) go first.
	for _, n := range procs.Names() {
		if !known[n] {
			progress(out, "stopping %s\n", n)
			_ = procs.Stop(n, 10*time.Second)
		}
	}
	for i := len(comps) - 1; i >= 0; i-- {
		if procs.Running(comps[i].name) {
			progress(out, "stopping %s\n", comps[i].name)
		}
		if err := procs.Stop(comps[i].name, 10*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// Clientset returns an admin client for the local control plane.
func (c Config) Clientset() (*kubernetes.Clientset, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	if err != nil {
		return nil, err
	}
	rc.QPS, rc.Burst = 100, 200
	return kubernetes.NewForConfig(rc)
}

// waitHealthy polls the component's health endpoint until it answers 200.
// It gives up as soon as the process has exited.
func (c Config) waitHealthy(ctx context.Context, name string, running func() bool) error {
	var url string
	switch name {
	case "etcd":
		url = fmt.Sprintf("http://127.0.0.1:%d/health", c.etcdClient())
	case "kube-apiserver":
		return c.waitAPIServer(ctx, running)
	case "kube-controller-manager":
		url = fmt.Sprintf("https://127.0.0.1:%d/healthz", c.kcm())
	case "kube-scheduler":
		url = fmt.Sprintf("https://127.0.0.1:%d/healthz", c.scheduler())
	case "kwok":
		url = fmt.Sprintf("https://127.0.0.1:%d/healthz", c.kubelet())
	case "metrics-server":
		url = fmt.Sprintf("https://127.0.0.1:%d/livez", c.metricsServer())
	}
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // loopback health probe only
	return poll(ctx, 2*time.Minute, func() (bool, error) {
		if !running() {
			return false, fmt.Errorf("%s exited", name)
		}
		resp, err := hc.Get(url)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close() // only the status is read
		return resp.StatusCode == http.StatusOK, nil
	})
}

func (c Config) waitAPIServer(ctx context.Context, running func() bool) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	return poll(ctx, 2*time.Minute, func() (bool, error) {
		if !running() {
			return false, fmt.Errorf("kube-apiserver exited")
		}
		b, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(b) == "ok", nil
	})
}

// WaitHTTP polls url until it answers 200 or the timeout passes.
func WaitHTTP(ctx context.Context, url string, timeout time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	err := poll(ctx, timeout, func() (bool, error) {
		resp, err := hc.Get(url)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close() // only the status is read
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("%s did not answer 200 within %s", url, timeout)
	}
	return nil
}

// portsFree checks nothing listens on the given loopback ports.
func portsFree(ports []int) error {
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return fmt.Errorf("port %d is in use", p)
		}
		if err := l.Close(); err != nil {
			return fmt.Errorf("port %d: %w", p, err)
		}
	}
	return nil
}

// poll calls cond every 200ms until it returns true, an error, or timeout.
func poll(ctx context.Context, timeout time.Duration, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// progress writes one line of progress to out. A failed write (a closed
// terminal) must not stop or half-start the control plane, so it is ignored.
func progress(out io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(out, format, args...)
}
