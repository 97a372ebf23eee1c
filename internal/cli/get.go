package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
	"github.com/ramp-rollouts/ramp/internal/gather"
	"github.com/ramp-rollouts/ramp/internal/view"
)

func init() {
	register(func(e *env) *cobra.Command {
		cmd := &cobra.Command{Use: "get", Short: "Show a rollout as a tree of revisions, ReplicaSets, pods and AnalysisRuns, list rollouts, or show an AnalysisRun's evidence"}
		cmd.AddCommand(newGetRollout(e), newListRollouts(e, "rollouts"), newGetAnalysisRun(e))
		return cmd
	})
	register(func(e *env) *cobra.Command {
		cmd := &cobra.Command{Use: "list", Short: "List rollouts"}
		cmd.AddCommand(newListRollouts(e, "rollouts", "rollout", "ro"))
		return cmd
	})
}

// getFlags are the output and watch flags of get and list.
type getFlags struct {
	output       string
	watch        bool
	watchTimeout time.Duration
	noColor      bool
}

func (f *getFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.output, "output", "o", "", "json or yaml: print the display model instead of text")
	cmd.Flags().BoolVarP(&f.watch, "watch", "w", false, "redraw on every change until Ctrl-C")
	cmd.Flags().DurationVar(&f.watchTimeout, "watch-timeout", 0, "with --watch, stop after this long (e.g. 30s; 0: never)")
}

func (f *getFlags) check() error {
	switch f.output {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("unknown output format %q: use json or yaml", f.output)
}

// getOne is a `get KIND NAME` command: its flags checked, the client and
// namespace resolved, then show writes the object named to out.
func getOne(e *env, f *getFlags, use, alias, short string, show func(ctx context.Context, c client.WithWatch, ns, name string, out io.Writer) error) *cobra.Command {
	return &cobra.Command{
		Use: use + " NAME", Aliases: []string{alias}, Args: cobra.ExactArgs(1), Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			c, ns, err := getClient(e)
			if err != nil {
				return err
			}
			return show(cmd.Context(), c, ns, args[0], e.streams.Out)
		},
	}
}

func newGetRollout(e *env) *cobra.Command {
	var f getFlags
	cmd := getOne(e, &f, "rollout", "ro", "Show a rollout: status, steps, weights, images, and its revisions' ReplicaSets, pods and AnalysisRuns",
		func(ctx context.Context, c client.WithWatch, ns, name string, out io.Writer) error {
			return runGetRollout(ctx, c, ns, name, f, out)
		})
	f.add(cmd)
	cmd.Flags().BoolVar(&f.noColor, "no-color", false, "no ANSI colours (also off when NO_COLOR is set or output is not a terminal)")
	return cmd
}

func newListRollouts(e *env, use string, aliases ...string) *cobra.Command {
	var f getFlags
	var all bool
	cmd := &cobra.Command{
		Use: use, Aliases: aliases, Args: cobra.NoArgs,
		Short: "List rollouts: strategy, status, step, weight and replica counts",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			c, ns, err := getClient(e)
			if err != nil {
				return err
			}
			if all {
				ns = ""
			}
			return runListRollouts(cmd.Context(), c, ns, f, e.streams.Out, e.streams.Err)
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "list rollouts in every namespace")
	return cmd
}

func getClient(e *env) (client.WithWatch, string, error) {
	c, err := e.client()
	if err != nil {
		return nil, "", err
	}
	ns, err := e.namespace()
	return c, ns, err
}

func runGetRollout(ctx context.Context, c client.WithWatch, ns, name string, f getFlags, out io.Writer) error {
	var sel client.ListOption
	frame := func(ctx context.Context) ([]byte, error) {
		o, err := readRollout(ctx, c, ns, name)
		if err != nil {
			return nil, err
		}
		sel = gather.PodSelector(o.Rollout)
		v := view.Rollout(o.Rollout, o.ReplicaSets, o.Pods, o.Runs, time.Now())
		v.AddExperiments(o.Experiments, time.Now())
		return f.encode(v, func(w io.Writer) error { return view.Render(w, v, f.color(out)) })
	}
	first, err := frame(ctx)
	if err != nil {
		return err
	}
	if !f.watch {
		_, err = out.Write(first)
		return err
	}
	in := client.InNamespace(ns)
	watches := []watched{
		{"rollouts.argoproj.io", &rampv1.RolloutList{}, []client.ListOption{in, client.MatchingFields{"metadata.name": name}}},
		{"analysisruns.argoproj.io", &rampv1.AnalysisRunList{}, []client.ListOption{in}},
		{"experiments.argoproj.io", &rampv1.ExperimentList{}, []client.ListOption{in}},
	}
	if sel != nil {
		watches = append(watches,
			watched{"replicasets.apps", &appsv1.ReplicaSetList{}, []client.ListOption{in, sel}},
			watched{"pods", &corev1.PodList{}, []client.ListOption{in, sel}})
	}
	return watchFrames(ctx, c, ns, watches, f, out, first, frame)
}

// readRollout reads what `get rollout` shows, saying what failed.
func readRollout(ctx context.Context, c client.Reader, ns, name string) (*gather.Objects, error) {
	o, err := gather.Rollout(ctx, c, ns, name)
	if ge := (*gather.Error)(nil); errors.As(err, &ge) {
		if ge.Verb == "get" && apierrors.IsNotFound(ge.Err) {
			return nil, fmt.Errorf("rollout %q not found", ns+"/"+name)
		}
		return nil, apiRefused(ge.Err, ge.Verb, ge.Resource, ns)
	}
	return o, err
}

func runListRollouts(ctx context.Context, c client.WithWatch, ns string, f getFlags, out, errOut io.Writer) error {
	frame := func(ctx context.Context) ([]byte, error) {
		l := &rampv1.RolloutList{}
		if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return nil, apiRefused(err, "list", "rollouts.argoproj.io", ns)
		}
		rows := make([]view.RolloutRow, 0, len(l.Items))
		for i := range l.Items {
			rows = append(rows, view.Row(&l.Items[i]))
		}
		return f.encode(rows, func(w io.Writer) error {
			if len(rows) == 0 && f.output == "" {
				return nil
			}
			return view.RenderRows(w, rows, ns == "")
		})
	}
	first, err := frame(ctx)
	if err != nil {
		return err
	}
	if len(first) == 0 {
		where := fmt.Sprintf(" in %s namespace", ns)
		if ns == "" {
			where = ""
		}
		if _, err := fmt.Fprintf(errOut, "No rollouts found%s.\n", where); err != nil {
			return err
		}
	}
	if !f.watch {
		_, err = out.Write(first)
		return err
	}
	watches := []watched{{"rollouts.argoproj.io", &rampv1.RolloutList{}, []client.ListOption{client.InNamespace(ns)}}}
	return watchFrames(ctx, c, ns, watches, f, out, first, frame)
}

// encode renders v as text, or as JSON or YAML with -o.
func (f *getFlags) encode(v any, text func(io.Writer) error) ([]byte, error) {
	var b bytes.Buffer
	switch f.output {
	case "json":
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		err := enc.Encode(v)
		return b.Bytes(), err
	case "yaml":
		return yaml.Marshal(v)
	}
	err := text(&b)
	return b.Bytes(), err
}

func (f *getFlags) color(out io.Writer) bool {
	return !f.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(out)
}

func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// watched is one list a watch redraws on.
type watched struct {
	resource string // as RBAC names it, for errors
	list     client.ObjectList
	opts     []client.ListOption
}

// watchFrames shows first, then a new frame whenever a watched list
// changes, until Ctrl-C or --watch-timeout. On a terminal each frame
// replaces the last; otherwise frames follow each other, separated.
func watchFrames(ctx context.Context, c client.WithWatch, ns string, watches []watched,
	f getFlags, out io.Writer, first []byte, frame func(context.Context) ([]byte, error)) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.watchTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.watchTimeout)
		defer cancel()
	}
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	failed := make(chan error, len(watches))
	for _, wd := range watches {
		w, err := c.Watch(ctx, wd.list, wd.opts...)
		if err != nil {
			return apiRefused(err, "watch", wd.resource, ns)
		}
		go func() {
			for {
				for range w.ResultChan() {
					notify()
				}
				w.Stop()
				// The server ended the watch: resume it after a second and
				// redraw, as events may have been missed.
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
				if w, err = c.Watch(ctx, wd.list, wd.opts...); err != nil {
					failed <- apiRefused(err, "watch", wd.resource, ns)
					return
				}
				notify()
			}
		}()
	}
	tty, last, n := isTerminal(out), []byte(nil), 0
	show := func(b []byte) error {
		if bytes.Equal(b, last) {
			return nil
		}
		var sep string
		switch {
		case tty:
			sep = "\033[H\033[2J"
		case n > 0 && f.output == "yaml":
			sep = "---\n"
		case n > 0 && f.output == "":
			sep = "\n"
		}
		last, n = b, n+1
		_, err := io.WriteString(out, sep+string(b))
		return err
	}
	if err := show(first); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case <-changed:
			// Let a burst of events (a scale touches the ReplicaSet and
			// every pod) settle into one frame.
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
			b, err := frame(ctx)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return err
			}
			if err := show(b); err != nil {
				return err
			}
		}
	}
}

// apiRefused names the verb and resource RBAC refused; other errors keep
// their cause.
func apiRefused(err error, verb, resource, ns string) error {
	where := fmt.Sprintf("in namespace %q", ns)
	if ns == "" {
		where = "at the cluster scope"
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("forbidden: cannot %s %s %s", verb, resource, where)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("cannot %s %s: the resource is not installed (apply the Ramp CRDs)", verb, resource)
	}
	return fmt.Errorf("%s %s %s: %w", verb, resource, where, err)
}
