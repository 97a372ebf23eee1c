package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// measurement is one row of docs/operations.md's measured memory table.
type measurement struct {
	rollouts   int
	idle, peak float64 // MiB
}

// sizing is one row of docs/operations.md's sizing table.
type sizing struct {
	rollouts       int
	request, limit resource.Quantity
	shipped        bool
}

// tableRows returns the cells of the rows of the first Markdown table
// after heading in doc, without its header and separator.
func tableRows(t *testing.T, doc, heading string) [][]string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/operations.md has no %q section", heading)
	}
	var rows [][]string
	for _, line := range strings.Split(doc[i+len(heading)+2:], "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	if len(rows) < 3 {
		t.Fatalf("the table under %q has no rows", heading)
	}
	return rows[2:]
}

// count reads "10,000" or "up to 1,000 (shipped ...)" as a number.
func count(cell string) (int, error) {
	f := strings.Fields(strings.TrimPrefix(cell, "up to "))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty count")
	}
	return strconv.Atoi(strings.ReplaceAll(f[0], ",", ""))
}

func readSizingDoc(t *testing.T) ([]measurement, []sizing) {
	t.Helper()
	data, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	var ms []measurement
	for _, r := range tableRows(t, doc, "### Measured memory") {
		n, err := count(r[0])
		idle, err2 := strconv.ParseFloat(r[2], 64)
		peak, err3 := strconv.ParseFloat(r[3], 64)
		if err != nil || err2 != nil || err3 != nil || len(r) < 5 {
			t.Fatalf("measured memory row %q: want Rollouts | replicas | idle MiB | peak MiB | source", r)
		}
		ms = append(ms, measurement{n, idle, peak})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].rollouts < ms[j].rollouts })
	ms = mostPerCount(ms)
	var ss []sizing
	for _, r := range tableRows(t, doc, "### Sizing") {
		n, err := count(r[0])
		req, err2 := resource.ParseQuantity(r[1])
		lim, err3 := resource.ParseQuantity(r[2])
		if err != nil || err2 != nil || err3 != nil {
			t.Fatalf("sizing row %q: want Rollouts | request | limit", r)
		}
		ss = append(ss, sizing{n, req, lim, strings.Contains(r[0], "shipped")})
	}
	return ms, ss
}

// mostPerCount merges the measurements of one number of Rollouts (sorted
// by it) into one with the highest idle and peak figures.
func mostPerCount(ms []measurement) []measurement {
	var out []measurement
	for _, m := range ms {
		if k := len(out) - 1; k >= 0 && out[k].rollouts == m.rollouts {
			out[k].idle, out[k].peak = max(out[k].idle, m.idle), max(out[k].peak, m.peak)
			continue
		}
		out = append(out, m)
	}
	return out
}

// need interpolates the measurements linearly at n Rollouts (past the last
// one, along the last two).
func need(ms []measurement, n int, of func(measurement) float64) float64 {
	i := sort.Search(len(ms), func(i int) bool { return ms[i].rollouts >= n })
	switch {
	case i < len(ms) && ms[i].rollouts == n:
		return of(ms[i])
	case i == 0:
		return of(ms[0])
	case i == len(ms):
		i = len(ms) - 1
	}
	a, b := ms[i-1], ms[i]
	return of(a) + (of(b)-of(a))*float64(n-a.rollouts)/float64(b.rollouts-a.rollouts)
}

func mib(q resource.Quantity) float64 { return float64(q.Value()) / (1 << 20) }

// TestManagerMemoryAgreesWithMeasurements: every row of the sizing table,
// and the Deployment config/manager ships, gives at least twice the
// measured peak RSS as its limit and at least the idle RSS as its request,
// for its number of Rollouts; the shipped manifest is the row marked
// shipped. Lowering the limit below what the measurements need fails here.
func TestManagerMemoryAgreesWithMeasurements(t *testing.T) {
	ms, ss := readSizingDoc(t)
	if len(ms) < 2 {
		t.Fatal("fewer than two measurements: nothing to interpolate")
	}
	peak := func(m measurement) float64 { return m.peak }
	idle := func(m measurement) float64 { return m.idle }
	var shipped *sizing
	for i, s := range ss {
		if p := need(ms, s.rollouts, peak); mib(s.limit) < 2*p {
			t.Errorf("sizing for %d Rollouts: limit %s is below twice the measured peak (2 × %.0f MiB)", s.rollouts, s.limit.String(), p)
		}
		if m := need(ms, s.rollouts, idle); mib(s.request) < m {
			t.Errorf("sizing for %d Rollouts: request %s is below the measured idle RSS (%.0f MiB)", s.rollouts, s.request.String(), m)
		}
		if s.shipped {
			shipped = &ss[i]
		}
	}
	if shipped == nil {
		t.Fatal("no sizing row is marked as shipped in config/manager")
	}

	data, err := os.ReadFile("../../config/manager/manager.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	req, lim := c.Resources.Requests.Memory(), c.Resources.Limits.Memory()
	if req.Cmp(shipped.request) != 0 || lim.Cmp(shipped.limit) != 0 {
		t.Errorf("config/manager asks for %s/%s (request/limit), the sizing table's shipped row (%d Rollouts) says %s/%s",
			req.String(), lim.String(), shipped.rollouts, shipped.request.String(), shipped.limit.String())
	}
}

// TestNeed: the interpolation the sizing test relies on.
func TestMostPerCount(t *testing.T) {
	got := mostPerCount([]measurement{{0, 40, 40}, {300, 76, 88}, {300, 91, 84}, {1000, 100, 140}})
	want := []measurement{{0, 40, 40}, {300, 91, 88}, {1000, 100, 140}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("mostPerCount = %v, want %v", got, want)
	}
}

func TestNeed(t *testing.T) {
	ms := []measurement{{0, 40, 40}, {1000, 100, 140}, {3000, 200, 300}}
	peak := func(m measurement) float64 { return m.peak }
	for n, want := range map[int]float64{0: 40, 500: 90, 1000: 140, 2000: 220, 3000: 300, 5000: 460} {
		if got := need(ms, n, peak); got != want {
			t.Errorf("need(%d) = %v, want %v", n, got, want)
		}
	}
}
