package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// get analysisrun is Ramp's own (upstream's plugin has none): the evidence
// a run decided on, metric by metric, with the last measurement's value,
// message and metadata (the judge's per-metric U, p-value, effect size and
// verdict; a job's name; a plugin's metadata).

func newGetAnalysisRun(e *env) *cobra.Command {
	var f getFlags
	cmd := getOne(e, &f, "analysisrun", "ar", "Show an AnalysisRun: phase, and per metric its counts and last measurement with its metadata",
		func(ctx context.Context, c client.WithWatch, ns, name string, out io.Writer) error {
			return runGetAnalysisRun(ctx, c, ns, name, f, out)
		})
	cmd.Flags().StringVarP(&f.output, "output", "o", "", "json or yaml: print the run's status instead of text")
	return cmd
}

func runGetAnalysisRun(ctx context.Context, c client.Reader, ns, name string, f getFlags, out io.Writer) error {
	run := &rampv1.AnalysisRun{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, run); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("analysisrun %s/%s not found", ns, name)
		}
		return fmt.Errorf("read analysisrun %s/%s: %w", ns, name, err)
	}
	b, err := f.encode(run.Status, func(w io.Writer) error { return renderRun(w, run, time.Now()) })
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// renderRun writes the run as text: a header, a table of metrics, then each
// metric's last measurement with its metadata (keys sorted).
func renderRun(w io.Writer, run *rampv1.AnalysisRun, now time.Time) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Name:       %s\nNamespace:  %s\nPhase:      %s\n", run.Name, run.Namespace, orDash(string(run.Status.Phase)))
	if run.Status.Message != "" {
		fmt.Fprintf(&b, "Message:    %s\n", run.Status.Message)
	}
	if t := run.Status.StartedAt; t != nil {
		fmt.Fprintf(&b, "Started:    %s ago\n", now.Sub(t.Time).Round(time.Second))
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0) // buffers into b: its writes fail only at Flush, which is checked
	_, _ = fmt.Fprintln(tw, "METRIC\tPHASE\tMEASURED\tSUCCESSFUL\tFAILED\tINCONCLUSIVE\tERRORS\tLAST VALUE")
	for _, m := range run.Status.MetricResults {
		last := lastMeasurement(m)
		value := "-"
		if last != nil && last.Value != "" {
			value = last.Value
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", m.Name, orDash(string(m.Phase)), m.Count, m.Successful, m.Failed, m.Inconclusive, m.Error, value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range run.Status.MetricResults {
		last := lastMeasurement(m)
		if last == nil || (last.Message == "" && len(last.Metadata) == 0) {
			continue
		}
		fmt.Fprintf(&b, "\n%s, last measurement (%s):\n", m.Name, orDash(string(last.Phase)))
		if last.Message != "" {
			fmt.Fprintf(&b, "  %s\n", last.Message)
		}
		keys := make([]string, 0, len(last.Metadata))
		for k := range last.Metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, last.Metadata[k])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func lastMeasurement(m rampv1.MetricResult) *rampv1.Measurement {
	if len(m.Measurements) == 0 {
		return nil
	}
	return &m.Measurements[len(m.Measurements)-1]
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
