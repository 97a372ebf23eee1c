//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// apiCounter is a reverse proxy to the local API server, with the suite's
// credentials, that counts the requests of the one process given its
// kubeconfig, by "VERB resource" (LIST, GET, WATCH, PATCH...), and the
// watches it holds open. The API server's own metrics count every client
// at once; this counts one.
type apiCounter struct {
	kubeconfig string

	mu       sync.Mutex
	requests map[string]float64
	watching map[string]float64
}

// newAPICounter starts the proxy (stopped when the test ends) and writes a
// kubeconfig that points at it.
func newAPICounter(t testing.TB) *apiCounter {
	t.Helper()
	target, err := url.Parse(env.rest.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(env.rest)
	if err != nil {
		t.Fatal(err)
	}
	c := &apiCounter{requests: map[string]float64{}, watching: map[string]float64{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport, proxy.FlushInterval = transport, -1 // watches stream through
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		verb, resource := apiVerb(r)
		c.mu.Lock()
		c.requests[verb+" "+resource]++
		if verb == "WATCH" {
			c.watching[resource]++
		}
		c.mu.Unlock()
		if verb == "WATCH" {
			defer func() {
				c.mu.Lock()
				c.watching[resource]--
				c.mu.Unlock()
			}()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: counted, cluster: {server: %q}}]
users: [{name: suite, user: {}}]
contexts: [{name: counted, context: {cluster: counted, user: suite}}]
current-context: counted
`, srv.URL)
	if err := os.WriteFile(c.kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// snapshot is the requests so far and the watches open now.
func (c *apiCounter) snapshot() (requests, watching map[string]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	requests, watching = map[string]float64{}, map[string]float64{}
	for k, v := range c.requests {
		requests[k] = v
	}
	for k, v := range c.watching {
		watching[k] = v
	}
	return requests, watching
}

// apiVerb names a request as the API server's metrics do: the verb (GET on
// a collection is LIST, with watch=true WATCH) and the resource, with its
// subresource after a slash.
func apiVerb(r *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:] // api/v1
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:] // apis/group/version
	default:
		return r.Method, r.URL.Path // discovery, /version...
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) != 2 {
		parts = parts[2:] // namespaces/NS/resource...
	}
	if len(parts) == 0 {
		return r.Method, r.URL.Path
	}
	resource, named := parts[0], len(parts) >= 2
	if len(parts) >= 3 {
		resource += "/" + parts[2]
	}
	verb = r.Method
	if verb == http.MethodGet {
		switch {
		case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
			verb = "WATCH"
		case !named:
			verb = "LIST"
		}
	}
	return verb, resource
}
