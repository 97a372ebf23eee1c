package metrics

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
)

var requests = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "controller_clientset", Name: "k8s_request_total",
	Help: "Number of kubernetes requests executed during application reconciliation.",
}, []string{"kind", "namespace", "name", "verb", "status_code"})

// CountRequests makes every request sent through cfg count in
// controller_clientset_k8s_request_total.
func CountRequests(cfg *rest.Config) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counting{rt} })
}

type counting struct{ next http.RoundTripper }

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	code := 0
	if resp != nil {
		code = resp.StatusCode
	}
	req := Describe(r)
	requests.WithLabelValues(req.Kind, req.Namespace, req.Name, req.Verb, strconv.Itoa(code)).Inc()
	return resp, err
}

// Request is what the request counter says of one API request.
type Request struct{ Kind, Namespace, Name, Verb string }

// Describe reads a request as upstream's counter labels it: the resource
// (plural) as kind, the verb (Get, List, Watch, Create, Update, Patch,
// Delete), the namespace and the object's name; "N/A" as the name of lists,
// watches, Events and ReplicaSets (whose names are unbounded). A
// subresource (…/name/status) counts against its object.
func Describe(r *http.Request) Request {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	// skip /api/v1 or /apis/<group>/<version>
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return Request{Kind: "Unknown", Namespace: "Unknown", Name: "Unknown", Verb: "Unknown"}
	}
	var q Request
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		q.Namespace, parts = parts[1], parts[2:]
	}
	if len(parts) > 0 {
		q.Kind = parts[0]
	}
	if len(parts) > 1 {
		q.Name = parts[1]
	}
	item := len(parts) > 1
	switch r.Method {
	case http.MethodPost:
		q.Verb, q.Name = "Create", createdName(r)
	case http.MethodDelete:
		q.Verb = "Delete"
	case http.MethodPatch:
		q.Verb = "Patch"
	case http.MethodPut:
		q.Verb = "Update"
	case http.MethodGet:
		switch {
		case item:
			q.Verb = "Get"
		case r.URL.Query().Get("watch") == "true":
			q.Verb = "Watch"
		default:
			q.Verb = "List"
		}
	default:
		return Request{Kind: "Unknown", Namespace: "Unknown", Name: "Unknown", Verb: "Unknown"}
	}
	if q.Verb == "List" || q.Verb == "Watch" || q.Kind == "events" || q.Kind == "replicasets" {
		q.Name = "N/A"
	}
	return q
}

// createdName is metadata.name of a JSON create body, "" when it has none
// (generateName) or is not JSON.
func createdName(r *http.Request) string {
	if r.GetBody == nil {
		return ""
	}
	body, err := r.GetBody()
	if err != nil {
		return ""
	}
	defer func() { _ = body.Close() }() // a copy of the request body in memory: closing it cannot fail in a way that matters
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.NewDecoder(io.LimitReader(body, 1<<20)).Decode(&obj); err != nil {
		return ""
	}
	return obj.Metadata.Name
}
