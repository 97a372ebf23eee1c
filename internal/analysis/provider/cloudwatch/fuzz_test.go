package cloudwatch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"

	"github.com/ramp-rollouts/ramp/internal/analysis/provider"
)

// httpBlock answers nothing until block is closed.
func httpBlock(block chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
}

// bodyClient answers every request with status 200 and body.
type bodyClient []byte

func (b bodyClient) Do(*http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/cbor"}, "Smithy-Protocol": {"rpc-v2-cbor"}},
		Body:       io.NopCloser(bytes.NewReader(b)),
	}, nil
}

// FuzzResponse: whatever body GetMetricData answers with, Measure returns
// a result or an error, never panics, and a result's Display is the list
// of value lists.
func FuzzResponse(f *testing.F) {
	for _, seed := range [][]byte{
		{0xa1, 0x71, 'M', 'e', 't', 'r', 'i', 'c', 'D', 'a', 't', 'a', 'R', 'e', 's', 'u', 'l', 't', 's', 0x80},
		{0xa0}, {0xff}, {}, []byte("{not cbor"),
		{0xa1, 0x71, 'M', 'e', 't', 'r', 'i', 'c', 'D', 'a', 't', 'a', 'R', 'e', 's', 'u', 'l', 't', 's', 0x81, 0xa1, 0x66, 'V', 'a', 'l', 'u', 'e', 's', 0x81, 0xf9, 0x3c, 0x00},
	} {
		f.Add(seed)
	}
	awsEnv(f, "http://127.0.0.1:1", false)
	f.Fuzz(func(t *testing.T, body []byte) {
		p := New(WithClientOptions(func(o *cloudwatch.Options) {
			o.HTTPClient = bodyClient(body)
			o.RetryMaxAttempts = 1
		}))
		res, err := p.Measure(context.Background(), provider.Request{Metric: upstreamMetric("true")})
		if err == nil && (len(res.Display) < 2 || res.Display[0] != '[') {
			t.Errorf("display %q", res.Display)
		}
	})
}
