package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/lint"
	"github.com/ramp-rollouts/ramp/internal/plan"
	"github.com/ramp-rollouts/ramp/internal/view"
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
		Long: `Show, without a cluster, what an update of each Rollout in FILE does: the
controller's own planner runs the update in a simulation (pods available at
once, every pause promoted, every analysis and Experiment successful) and
each settled point is a row. For a canary, per step the requested and actual
weight, canary and stable pods, the most pods at once while moving into the
step, and the pauses and analyses that gate it; for blue-green, the preview,
the promotion gate, the switch and the scale-down delay. With --hpa, a
traffic-routed canary takes its pods from stable, as the controller does
while an HPA targets the Rollout. A Rollout the controller would not run
(InvalidSpec) is reported instead, and plan exits 1.`,
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
		out := &printer{w: e.streams.Out}
		for _, p := range problems {
			out.println(p)
		}
		if out.err != nil {
			return out.err
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
	var refused []string
	for i, ro := range ros {
		if i > 0 {
			if _, err := fmt.Fprintln(e.streams.Out); err != nil {
				return err
			}
		}
		ok, err := printPlan(e.streams.Out, ro, f)
		if err != nil {
			return err
		}
		if !ok {
			refused = append(refused, ro.Name)
		}
	}
	if len(refused) > 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("plan: the controller would not run Rollout %s (see above)", strings.Join(refused, ", "))}
	}
	return nil
}

// printPlan writes the plan of one Rollout: the update its own planner
// walks in plan.Simulate. A Rollout the controller would not run gets its
// InvalidSpec messages, one line each, and no plan (ok false).
func printPlan(w io.Writer, ro *rampv1.Rollout, f planFlags) (ok bool, err error) {
	tr, err := plan.Simulate(ro, plan.SimOptions{Replicas: f.replicas, HPA: f.hpa})
	var spec *plan.SpecError
	if errors.As(err, &spec) {
		out := &printer{w: w}
		for _, msg := range spec.Messages {
			if plan.Unsupported(msg) {
				out.printf("! Rollout %s: Ramp refuses this Rollout (InvalidSpec): %s\n", ro.Name, msg)
				continue
			}
			out.printf("! Rollout %s: invalid (InvalidSpec, nothing runs): %s\n", ro.Name, msg)
		}
		return false, out.err
	}
	if err != nil {
		return false, fmt.Errorf("plan: Rollout %s: %w", ro.Name, err)
	}
	if tr.Strategy == plan.StrategyBlueGreen {
		return true, printBlueGreenPlan(w, ro, tr, f.hpa)
	}
	var upstream *plan.Trajectory
	if f.hpa { // what Argo Rollouts' HPA counts: Ramp without an HPA runs as upstream does
		if u, err := plan.Simulate(ro, plan.SimOptions{Replicas: f.replicas}); err == nil {
			upstream = &u
		}
	}
	return true, printCanaryPlan(w, ro, tr, upstream)
}

func planRouters(tr *rampv1.RolloutTrafficRouting) string {
	var out []string
	for _, r := range view.Routers(tr, "") {
		out = append(out, r.Name)
	}
	if len(out) == 0 {
		return "no router"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
