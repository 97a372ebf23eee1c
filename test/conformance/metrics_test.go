//go:build conformance

package conformance

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// sample is one line of a Prometheus text exposition.
type sample struct {
	family string // the metric family (histogram samples keep their suffix)
	typ    string // the family's TYPE (counter, gauge, histogram, ...)
	labels map[string]string
	value  string
}

// scrape reads the side's controller metrics: samples and TYPE of each
// family.
func (s *side) scrape(ctx context.Context) ([]sample, map[string]string, error) {
	if s.metricsAddr == "" {
		return nil, nil, fmt.Errorf("%s: no metrics address", s.name)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.metricsAddr+"/metrics", nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: scrape: %w", s.name, err)
	}
	defer func() { _ = resp.Body.Close() }() // read to the end or failed already: a close error changes nothing
	return parseExposition(io.LimitReader(resp.Body, 64<<20))
}

// parseExposition reads the text format: "# TYPE name type" and
// `name{k="v",...} value [timestamp]` lines.
func parseExposition(r io.Reader) ([]sample, map[string]string, error) {
	var out []sample
	types := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		s := sample{labels: map[string]string{}}
		rest := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			s.family, rest = line[:i], line[i:]
		}
		if strings.HasPrefix(rest, "{") {
			var err error
			if rest, err = parseLabels(rest[1:], s.labels); err != nil {
				return nil, nil, fmt.Errorf("%q: %w", line, err)
			}
		}
		if f := strings.Fields(rest); len(f) > 0 {
			s.value = f[0]
		}
		s.typ = types[s.family]
		if base, ok := strings.CutSuffix(s.family, "_count"); ok && types[base] == "histogram" {
			s.typ = "histogram"
		}
		out = append(out, s)
	}
	return out, types, sc.Err()
}

// parseLabels reads `k="v",...}` into m and returns what follows the brace.
func parseLabels(s string, m map[string]string) (string, error) {
	for {
		s = strings.TrimLeft(s, ", ")
		if strings.HasPrefix(s, "}") {
			return s[1:], nil
		}
		eq := strings.Index(s, `="`)
		if eq < 0 {
			return "", fmt.Errorf("no label value")
		}
		key := s[:eq]
		s = s[eq+2:]
		var v strings.Builder
		for i := 0; ; i++ {
			if i >= len(s) {
				return "", fmt.Errorf("unterminated label value")
			}
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					v.WriteByte('\n')
				default:
					v.WriteByte(s[i])
				}
				continue
			}
			if c == '"' {
				s = s[i+1:]
				break
			}
			v.WriteByte(c)
		}
		m[key] = v.String()
	}
}

// objectGauges are upstream's per-object gauge families, compared value by
// value at every settled point.
var objectGauges = []string{
	"rollout_info", "rollout_info_replicas_available", "rollout_info_replicas_unavailable", "rollout_info_replicas_desired",
	"rollout_info_replicas_updated", "rollout_phase", "analysis_run_info", "analysis_run_phase", "analysis_run_metric_type",
	"analysis_run_metric_phase", "analysis_template_info", "analysis_template_metric_info", "experiment_info", "experiment_phase",
}

// metricKey names a sample without its namespace label (each side runs the
// scenario in its own namespace), labels sorted.
func metricKey(s sample) string {
	keys := make([]string, 0, len(s.labels))
	for k := range s.labels {
		if k != "namespace" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + s.labels[k]
	}
	return "metric " + s.family + "{" + strings.Join(parts, ",") + "}"
}

// upstreamFamilies are the metric families Argo Rollouts v1.9.1 defines for
// dashboards and alerts (its controller/metrics package), by exposed name,
// histograms by their _count. Left out: the _error counters (whether a pass
// failed, on a conflict say, is a race on either side) and the
// notification families (Ramp sends no notifications).
var upstreamFamilies = []string{
	"rollout_info", "rollout_info_replicas_available", "rollout_info_replicas_unavailable", "rollout_info_replicas_desired",
	"rollout_info_replicas_updated", "rollout_phase", "rollout_reconcile_count", "rollout_events_total",
	"analysis_run_info", "analysis_run_phase", "analysis_run_metric_type", "analysis_run_metric_phase", "analysis_run_reconcile_count",
	"analysis_template_info", "analysis_template_metric_info",
	"experiment_info", "experiment_phase", "experiment_reconcile_count",
	"controller_clientset_k8s_request_total",
}

// observeMetrics adds a namespace's samples to an observation: the values
// of upstream's per-object gauges and the type and label names of every
// family of upstreamFamilies (which Events rollout_events_total counted is
// compared once they stopped coming: countedEvents). Request counts differ by design
// (docs/performance.md), so only their labels are compared.
func observeMetrics(put func(string, any), samples []sample) {
	for _, s := range samples {
		switch {
		case slices.Contains(objectGauges, s.family):
			put(metricKey(s), s.value)
		}
		if slices.Contains(upstreamFamilies, s.family) {
			names := slices.Sorted(maps.Keys(s.labels))
			put("family "+s.family, s.typ+" "+strings.Join(names, ","))
		}
	}
}

// countedEvents is "<type>/<reason> ..." of the namespace's Rollouts as
// rollout_events_total counted them, sorted, leaving out the given ones
// (reasons said only by Events that lost a race: world.raceOnlyReasons).
func countedEvents(samples []sample, skip map[string]bool) string {
	var out []string
	for _, s := range samples {
		if r := s.labels["type"] + "/" + s.labels["reason"]; s.family == "rollout_events_total" && !skip[r] {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), " ")
}
