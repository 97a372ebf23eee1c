package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
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
preview, the promotion gate, the switch and the scale-down delay. With --hpa,
a traffic-routed canary takes its pods from stable, as the controller does
while an HPA targets the Rollout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPlan(e, args[0], f) },
	}
	cmd.Flags().Int32Var(&f.replicas, "replicas", 0, "plan for this many replicas instead of spec.replicas (e.g. what an HPA scaled to)")
	cmd.Flags().BoolVar(&f.hpa, "hpa", false, "plan as if an HPA targets the Rollout, and show the pods it counts")
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
			if _, err := fmt.Fprintln(e.streams.Out, p); err != nil {
				return err
			}
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
			if _, err := fmt.Fprintln(e.streams.Out); err != nil {
				return err
			}
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
		if _, err := fmt.Fprintf(w, "! Ramp would not run this update (InvalidSpec): %s\n", msg); err != nil {
			return err
		}
	}
	switch {
	case ro.Spec.Strategy.Canary != nil:
		fc, err := plan.ForecastCanary(ro, f.replicas, f.hpa)
		if err != nil {
			return fmt.Errorf("plan: Rollout %s: %w", ro.Name, err)
		}
		return printCanaryPlan(w, ro, fc, f.hpa)
	case ro.Spec.Strategy.BlueGreen != nil:
		fb, err := plan.ForecastBlueGreen(ro, f.replicas)
		if err != nil {
			return fmt.Errorf("plan: Rollout %s: %w", ro.Name, err)
		}
		return printBlueGreenPlan(w, ro, fb, f.hpa)
	}
	return fmt.Errorf("plan: Rollout %s: spec.strategy sets neither canary nor blueGreen", ro.Name)
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
