package skywalking

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// answer is a GraphQL response: data, and errors with their messages.
type answer struct {
	Data   any `json:"data"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// parse turns a GraphQL answer into a result: its data, displayed as JSON.
// Errors in the answer (whatever the status), an answer that is not JSON
// (the status when not 2xx), and a null data are errors, as upstream.
func parse(status int, body []byte) (provider.Result, error) {
	if jsonValues(body, provider.MaxValues) > provider.MaxValues {
		if status < 200 || status > 299 {
			return provider.Result{}, fmt.Errorf("server returned HTTP %d: %s", status, httpfetch.Excerpt(string(body)))
		}
		return provider.Result{}, fmt.Errorf("the answer has more than %d JSON values: narrow the query", provider.MaxValues)
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		if status < 200 || status > 299 {
			return provider.Result{}, fmt.Errorf("server returned HTTP %d: %s", status, httpfetch.Excerpt(string(body)))
		}
		return provider.Result{}, fmt.Errorf("invalid JSON response: %w", err)
	}
	if len(a.Errors) > 0 {
		msgs := make([]string, len(a.Errors))
		for i, e := range a.Errors {
			msgs[i] = e.Message
		}
		return provider.Result{}, fmt.Errorf("graphql: %s", httpfetch.Excerpt(strings.Join(msgs, "; ")))
	}
	if status < 200 || status > 299 {
		return provider.Result{}, fmt.Errorf("server returned HTTP %d", status)
	}
	if a.Data == nil {
		return provider.Result{}, errors.New("no results returned from SkyWalking query")
	}
	display, err := json.Marshal(a.Data)
	if err != nil {
		return provider.Result{}, fmt.Errorf("could not marshal results: %w", err)
	}
	return provider.Result{Value: a.Data, Display: string(display)}, nil
}

// jsonValues is about how many values a JSON text holds (scalars, arrays
// and objects; not an object's keys), counted up to limit+1 without
// decoding anything: one, plus each comma and opening bracket outside a
// string (an empty array or object counts one more than it holds). It
// bounds what decoding the text into an any tree may allocate: a 16 MiB
// answer of small numbers took 5 s and 400 MiB of heap.
func jsonValues(b []byte, limit int) int {
	n, inString := 1, false
	for i := 0; i < len(b) && n <= limit; i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++ // the escaped byte
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == '[' || c == '{'):
			n++
		}
	}
	return n
}
