package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// patchTerminate stops an AnalysisRun or an Experiment, as the Argo
// Rollouts plugin's terminate does.
const patchTerminate = `{"spec":{"terminate":true}}`

func init() { register(newTerminate) }

func newTerminate(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "terminate", Short: "Terminate an AnalysisRun or an Experiment (spec.terminate)"}
	for _, k := range []struct {
		use, resource string
		obj           func() client.Object
	}{
		{"analysisrun", "analysisruns.argoproj.io", func() client.Object { return &rampv1.AnalysisRun{} }},
		{"experiment", "experiments.argoproj.io", func() client.Object { return &rampv1.Experiment{} }},
	} {
		cmd.AddCommand(&cobra.Command{
			Use: k.use + " NAME", Short: "Terminate an " + k.use + ": it ends (Successful unless a verdict came first) and stops what it runs",
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := e.client()
				if err != nil {
					return err
				}
				ns, err := e.namespace()
				if err != nil {
					return err
				}
				obj := k.obj()
				if err := c.Get(cmd.Context(), client.ObjectKey{Namespace: ns, Name: args[0]}, obj); err != nil {
					if apierrors.IsNotFound(err) {
						return fmt.Errorf("%s %q not found", k.use, ns+"/"+args[0])
					}
					return apiRefused(err, "get", k.resource, ns)
				}
				if err := c.Patch(cmd.Context(), obj, client.RawPatch(types.MergePatchType, []byte(patchTerminate))); err != nil {
					return apiRefused(err, "patch", k.resource, ns)
				}
				return printed(fmt.Fprintf(e.streams.Out, "%s %q terminated\n", k.use, args[0]))
			},
		})
	}
	return cmd
}
