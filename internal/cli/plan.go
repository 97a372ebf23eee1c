package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/lint"
	"github.com/ramp-rollouts/ramp/internal/plan"
)

func init() { register(newPlan) }

// planFlags are the options of `ramp plan`.
type planFlags struct {
	replicas int32
	hpa      bool
}

func newPlan(e *env) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan FILE",
		Short: "Show, offline, what an update of each Rollout in FILE does step by step (- reads standard input)",
		Long: `Show, without a cluster, what an update of each Rollout in FILE does, using
the controller's own replica math: for a canary, per step the requested and
actual weight, canary and stable pods, the most pods at once while moving
into the step, and the pauses and analyses that gate it; for blue-green, the
preview, the promotion gate, the switch and the scale-down delay.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlan(e, args[0], f) },
	}
	cmd.Flags().Int32Var(&f.replicas, "replicas", 0, "plan for this many replicas instead of spec.replicas (e.g. what an HPA scaled to)")
	cmd.Flags().BoolVar(&f.hpa, "hpa", false, "show the pods an HPA targeting the Rollout counts")
	return cmd
}

func runPlan(e *env, file string, f planFlags) error {
	if f.replicas < 0 {
		return fmt.Errorf("plan: --replicas %d: want 0 (spec.replicas) or more", f.replicas)
	}
	data, err := readManifest(e, file)
	if err != nil {
		return err
	}
	objs, problems := lint.Parse(file, data)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(e.streams.Out, p)
		}
		return &ExitError{Code: 1, Err: fmt.Errorf("plan: cannot read the objects in %s (see above)", file)}
	}
	var ros []*rampv1.Rollout
	for _, o := range objs {
		if o.Kind != "Rollout" || o.APIVersion != rampv1.GroupVersion.String() {
			continue
		}
		ro := &rampv1.Rollout{}
		if err := json.Unmarshal(o.JSON, ro); err != nil {
			return fmt.Errorf("%s:%d: %w (run `%s lint %s`)", o.File, o.Line, err, e.prog, file)
		}
		ros = append(ros, ro)
	}
	if len(ros) == 0 {
		return fmt.Errorf("plan: no %s Rollout in %s", rampv1.GroupVersion, file)
	}
	for i, ro := range ros {
		if i > 0 {
			fmt.Fprintln(e.streams.Out)
		}
		if err := printPlan(e.streams.Out, ro, f); err != nil {
			return err
		}
	}
	return nil
}

// printPlan writes the plan of one Rollout.
func printPlan(w io.Writer, ro *rampv1.Rollout, f planFlags) error {
	for _, msg := range plan.ValidateRollout(ro) {
		fmt.Fprintf(w, "! Ramp would not run this update (InvalidSpec): %s\n", msg)
	}
	switch {
	case ro.Spec.Strategy.Canary != nil:
		fc, err := plan.ForecastCanary(ro, f.replicas)
		if err != nil {
			return fmt.Errorf("plan: Rollout %s: %w", ro.Name, err)
		}
		printCanaryPlan(w, ro, fc, f.hpa)
	case ro.Spec.Strategy.BlueGreen != nil:
		fb, err := plan.ForecastBlueGreen(ro, f.replicas)
		if err != nil {
			return fmt.Errorf("plan: Rollout %s: %w", ro.Name, err)
		}
		printBlueGreenPlan(w, ro, fb, f.hpa)
	default:
		return fmt.Errorf("plan: Rollout %s: spec.strategy sets neither canary nor blueGreen", ro.Name)
	}
	return nil
}

func printCanaryPlan(w io.Writer, ro *rampv1.Rollout, fc plan.CanaryForecast, hpa bool) {
	c, n := ro.Spec.Strategy.Canary, fc.Replicas
	fmt.Fprintf(w, "Rollout %s (canary): %d replicas, maxSurge %d, maxUnavailable %d\n", ro.Name, n, fc.Surge, fc.Unavailable)
	if tr := c.TrafficRouting; tr != nil {
		fmt.Fprintf(w, "traffic: trafficRouting (%s); this version of Ramp does not route traffic yet: it follows the pods\n", planRouters(tr))
	} else {
		fmt.Fprintln(w, "traffic: follows the pods (no trafficRouting)")
	}
	if len(fc.Background) > 0 {
		fmt.Fprintf(w, "background analysis: %s from step %d; this version of Ramp does not run it yet\n",
			strings.Join(fc.Background, ", "), fc.BackgroundFrom)
	}
	fmt.Fprintf(w, "The first deploy skips the steps. An update, from %d stable pods:\n\n", n)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "STEP\tACTION\tWEIGHT\tACTUAL\tCANARY\tSTABLE"
	if hpa {
		head += "\tHPA\tUPSTREAM"
	}
	fmt.Fprintln(tw, head+"\tPEAK\tGATE")
	rounded := false
	for _, s := range fc.Steps {
		idx, weight := fmt.Sprint(s.Index), planWeight(s.Weight, c.MaxTrafficWeight())
		if s.Step == "complete" {
			idx = "-"
		}
		actual := fmt.Sprintf("%d%%", (int64(s.Canary)*1000/int64(max(n, 1))+5)/10)
		if c.MaxTrafficWeight() == 100 && int64(s.Canary)*100 != int64(s.Weight)*int64(n) {
			actual += "*"
			rounded = true
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%d", idx, s.Step, weight, actual, s.Canary, s.Stable)
		if hpa {
			row += fmt.Sprintf("\t%d\t%d", s.Canary+s.Stable, s.Canary+n)
		}
		peak := "-"
		if s.Peak > 0 {
			peak = fmt.Sprint(s.Peak)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row, peak, canaryGate(fc, s))
	}
	tw.Flush()

	fmt.Fprintln(w)
	if rounded {
		fmt.Fprintln(w, "* canary pods are whole pods, rounded up: ACTUAL is the canary's share of the pods (10% of 5 replicas = 1 pod = 20%)")
	}
	fmt.Fprintf(w, "PEAK: most pods at once while moving into the step, never above %d + maxSurge %d\n", n, fc.Surge)
	if hpa {
		fmt.Fprintf(w, "HPA: pods an HPA on this Rollout counts once the step settles; Ramp keeps canary + stable at %d (up to PEAK while moving)\n", n)
		fmt.Fprintf(w, "UPSTREAM: what it would count if the stable ReplicaSet stayed at %d beside the canary (Argo Rollouts with trafficRouting,\n", n)
		fmt.Fprintln(w, "  without dynamicStableScale); e.g. 4 stable + 4 canary at 28%/54% memory -> ceil(8 x 28/54) = 5: a scale-up with no change in load")
	}
}

// canaryGate is what holds a step besides its pods.
func canaryGate(fc plan.CanaryForecast, s plan.ForecastStep) string {
	var parts []string
	if s.Step == "complete" {
		parts = append(parts, "the new ReplicaSet becomes stable")
	}
	if g := gateText(s.Gate); g != "" {
		parts = append(parts, g)
	}
	if len(fc.Background) > 0 && int32(s.Index) == fc.BackgroundFrom && s.Step != "complete" {
		parts = append(parts, "background analysis starts")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// gateText describes a gate: "paused until promoted", "paused 10s",
// "analysis success-rate must pass".
func gateText(g plan.Gate) string {
	switch {
	case g.Pause && g.Duration == nil:
		return "paused until promoted"
	case g.Pause:
		return "paused " + planDuration(*g.Duration)
	case len(g.Analysis) > 0:
		return "analysis " + strings.Join(g.Analysis, ", ") + " must pass"
	case g.Other != "":
		return "waits for " + g.Other
	}
	return ""
}

// planWeight is a weight as a percentage, or in units of maxTrafficWeight.
func planWeight(w, maxWeight int32) string {
	if maxWeight == 100 {
		return fmt.Sprintf("%d%%", w)
	}
	return fmt.Sprintf("%d/%d", w, maxWeight)
}

// planDuration prints 1h0m0s as 1h and 2m0s as 2m.
func planDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func planRouters(tr *rampv1.RolloutTrafficRouting) string {
	var out []string
	for name, set := range map[string]bool{"alb": tr.ALB != nil, "ambassador": tr.Ambassador != nil, "apisix": tr.Apisix != nil,
		"appMesh": tr.AppMesh != nil, "istio": tr.Istio != nil, "nginx": tr.Nginx != nil, "smi": tr.SMI != nil, "traefik": tr.Traefik != nil} {
		if set {
			out = append(out, name)
		}
	}
	for name := range tr.Plugins {
		out = append(out, "plugin "+name)
	}
	if len(out) == 0 {
		return "no router"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
