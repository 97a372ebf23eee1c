package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/doctor"
)

func init() { register(newDoctor) }

func newDoctor(e *env) *cobra.Command {
	var all bool
	var leaseNS []string
	cmd := &cobra.Command{
		Use:   "doctor [ROLLOUT]",
		Short: "Check the live Rollouts and HPAs of a namespace: lint's rules, plus what only the cluster knows",
		Long: `Check what runs in the cluster, read-only.

The rules of ` + "`ramp lint`" + ` are applied to the live Rollouts and the
HorizontalPodAutoscalers that target them (an HPA metric on a resource the pods
do not request; hpa-accounting: surge with a resource metric on a routed
canary), and then what only the cluster knows: an HPA whose ScalingActive or
AbleToScale condition is False and why, metrics.k8s.io not served, a Rollout
the controller reports InvalidSpec or Degraded, a generation the controller has
not processed, how HPAs count the canary's pods, and whether a controller holds
and renews the ramp-controller Lease.

Each finding is printed as "Kind namespace/name: severity: field: message";
errors exit 1.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, err := e.namespace()
			if err != nil {
				return err
			}
			if all {
				ns = ""
			}
			s, err := e.snapshot(cmd.Context(), ns, append(leaseNS, ns), args)
			if err != nil {
				return err
			}
			fs := doctor.Check(s)
			for _, f := range fs {
				if _, err := fmt.Fprintln(e.streams.Out, f); err != nil {
					return err
				}
			}
			errs, warns := doctor.Count(fs)
			if _, err := fmt.Fprintf(e.streams.Out, "doctor: %d rollout(s), %d HPA(s), %d experiment(s): %d error(s), %d warning(s)\n",
				len(s.Rollouts), len(s.HPAs), len(s.Experiments), errs, warns); err != nil {
				return err
			}
			if errs > 0 {
				return &ExitError{Code: 1, Err: fmt.Errorf("doctor: %d error(s)", errs)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "check every namespace")
	cmd.Flags().StringSliceVar(&leaseNS, "controller-namespace", []string{"ramp-system", "kube-system"},
		"namespaces to look for the controller's Lease in, in order (the controller's --leader-election-namespace); the checked namespace is tried last")
	return cmd
}

// snapshot reads what doctor checks: the Rollouts of ns ("" = all), only
// the one named in args when there is one, the HPAs that target them, the
// controller's Lease and whether metrics.k8s.io is served.
func (e *env) snapshot(ctx context.Context, ns string, leaseNS, args []string) (doctor.Snapshot, error) {
	s := doctor.Snapshot{Now: time.Now()}
	c, err := e.client()
	if err != nil {
		return s, err
	}
	var ros rampv1.RolloutList
	if err := c.List(ctx, &ros, client.InNamespace(ns)); err != nil {
		return s, explain(err, "list", "rollouts.argoproj.io", ns, "")
	}
	var hpas autoscalingv2.HorizontalPodAutoscalerList
	if err := c.List(ctx, &hpas, client.InNamespace(ns)); err != nil {
		return s, explain(err, "list", "horizontalpodautoscalers.autoscaling", ns, "")
	}
	var exs rampv1.ExperimentList
	if err := c.List(ctx, &exs, client.InNamespace(ns)); err != nil {
		return s, explain(err, "list", "experiments.argoproj.io", ns, "")
	}
	s.Rollouts, s.HPAs, s.Experiments = ros.Items, hpas.Items, exs.Items
	if len(args) == 1 {
		name := args[0]
		s.Rollouts = slices.DeleteFunc(s.Rollouts, func(ro rampv1.Rollout) bool { return ro.Name != name })
		if len(s.Rollouts) == 0 {
			return s, fmt.Errorf("rollout %q not found", ns+"/"+name)
		}
		s.HPAs = slices.DeleteFunc(s.HPAs, func(h autoscalingv2.HorizontalPodAutoscaler) bool {
			return h.Spec.ScaleTargetRef.Kind != "Rollout" || h.Spec.ScaleTargetRef.Name != name
		})
		uid := s.Rollouts[0].UID
		s.Experiments = slices.DeleteFunc(s.Experiments, func(ex rampv1.Experiment) bool {
			ctl := metav1.GetControllerOf(&ex)
			return ctl == nil || ctl.UID != uid
		})
	}
	s.Lease, s.LeaseNamespaces, s.LeaseErr = findLease(ctx, c, leaseNS)
	if len(s.HPAs) > 0 {
		s.MetricsAPI = e.metricsAPI()
	}
	return s, nil
}

// findLease returns the first ramp-controller Lease among namespaces.
func findLease(ctx context.Context, c client.Client, namespaces []string) (*coordinationv1.Lease, []string, error) {
	var tried []string
	for _, ns := range namespaces {
		if ns == "" || slices.Contains(tried, ns) {
			continue
		}
		tried = append(tried, ns)
		var l coordinationv1.Lease
		err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: doctor.LeaseName}, &l)
		switch {
		case err == nil:
			return &l, tried, nil
		case apierrors.IsForbidden(err):
			return nil, tried, fmt.Errorf("forbidden: cannot get leases.coordination.k8s.io in namespace %q", ns)
		case !apierrors.IsNotFound(err):
			return nil, tried, err
		}
	}
	return nil, tried, nil
}

// metricsAPI is nil when metrics.k8s.io/v1beta1 serves pods, else why not.
func (e *env) metricsAPI() error {
	cfg, err := e.flags.ToRESTConfig()
	if err != nil {
		return err
	}
	// Not kubectl's disk-cached discovery: an APIService that just became
	// unavailable must show.
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	res, err := d.ServerResourcesForGroupVersion("metrics.k8s.io/v1beta1")
	if err != nil {
		return err
	}
	for _, r := range res.APIResources {
		if r.Name == "pods" {
			return nil
		}
	}
	return errors.New("it serves no pods resource")
}
