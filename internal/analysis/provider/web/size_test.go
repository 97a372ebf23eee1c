package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/analysis/provider/httpfetch"
)

// TestMeasureRefusesLargeBody: a response over httpfetch.MaxResponseBytes
// is an Error naming the limit, before any decoding.
func TestMeasureRefusesLargeBody(t *testing.T) {
	big := `"` + strings.Repeat("x", httpfetch.MaxResponseBytes) + `"`
	url, _ := endpoint(t, false, 200, big)
	_, err := New().Measure(context.Background(), request(rampv1.WebMetric{URL: url}))
	if want := "web: GET " + url + ": response larger than the 16 MiB limit"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// jsonBody is a JSON document of about n bytes: an array of small objects,
// as a metrics endpoint returns.
func jsonBody(n int) string {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"series-%d","value":%d.5,"ok":true}`, i, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// peakHeap samples the live heap while f runs and returns the highest
// figure above the heap before it.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if peak.Load() < base {
		return 0
	}
	return peak.Load() - base
}

// BenchmarkMeasure10MiB prints the peak heap (sampled, above the heap
// before the measurement) of measuring a 10 MiB JSON body whole: the body
// read once into one buffer sized by Content-Length, then decoded.
func BenchmarkMeasure10MiB(b *testing.B) {
	body := jsonBody(10 << 20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer srv.Close()
	p := New()
	var worst uint64
	for b.Loop() {
		peak := peakHeap(func() {
			if _, err := p.Measure(context.Background(), request(rampv1.WebMetric{URL: srv.URL, JSONPath: "{$.items[0].value}"})); err != nil {
				b.Fatal(err)
			}
		})
		worst = max(worst, peak)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MiB")
}
