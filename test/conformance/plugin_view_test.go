//go:build conformance

package conformance

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// The upstream plugin's own views (`get rollout`, `list rollouts`, `get
// experiment`) at every settled point, normalized, are part of the
// observation: what a user of the plugin reads must be the same under both
// controllers (revisions, ReplicaSet and pod states, the scale-down delay,
// the step and weights, experiments and analysis runs in the tree).

var (
	// ageToken is a value of the AGE column (12s, 3m4s, 2h, 5d).
	ageToken = regexp.MustCompile(`^\d+[smhd](\d+[smh])?$`)
	// podSuffix is the random suffix of a pod's name.
	podSuffix = regexp.MustCompile(`-[a-z0-9]{5}(\s|$)`)
	// delayLeft is the countdown of a scale-down delay ("delay:28s").
	delayLeft = regexp.MustCompile(`delay:(\d+[smh])+`)
	spaces    = regexp.MustCompile(`[ \t]+`)
	// measured is a count of measurements in an AnalysisRun's INFO ("✔ 6"):
	// how many an interval fitted in is a matter of timing.
	measured = regexp.MustCompile(`(\S) \d+\b`)
)

// pluginView runs the plugin's views for what the namespace holds and
// returns them normalized ("" when there is nothing to show).
func (a *actor) pluginView(ctx context.Context, w *world) map[string]string {
	n := newNormalizer(w.hashes())
	views := map[string]string{}
	show := func(key string, args ...string) {
		out, err := a.run(ctx, "", cfg.plugin, append([]string{"-n", a.ns}, args...)...)
		if err != nil {
			views[key] = "(error) " + n.apply(err.Error())
			return
		}
		views[key] = normalizeView(n, out)
	}
	for _, r := range w.rollouts {
		show("plugin get rollout "+r.GetName(), "get", "rollout", r.GetName(), "--no-color")
	}
	if len(w.rollouts) > 0 {
		show("plugin list rollouts", "list", "rollouts")
	}
	if len(w.rollouts) == 0 {
		for _, e := range w.experiments {
			show("plugin get experiment "+e.GetName(), "get", "experiment", e.GetName(), "--no-color")
		}
	}
	return views
}

// normalizeView drops what differs by construction: ages, the seconds left
// of a delay, pods' random suffixes, an AnalysisRun's measurement counts,
// column padding; hashes become H<rev>.
func normalizeView(n normalizer, out string) string {
	var lines []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		line = delayLeft.ReplaceAllString(line, "delay:<left>")
		if strings.Contains(line, " Pod ") {
			line = podSuffix.ReplaceAllString(line, "-<pod>$1")
		}
		if i := strings.Index(line, " AnalysisRun "); i >= 0 {
			line = line[:i] + measured.ReplaceAllString(line[i:], "$1 <n>")
		}
		fields := strings.Fields(line)
		kept := fields[:0]
		for _, f := range fields {
			if !ageToken.MatchString(f) {
				kept = append(kept, f)
			}
		}
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		line = spaces.ReplaceAllString(lead+strings.Join(kept, " "), " ")
		lines = append(lines, n.apply(line))
	}
	return strings.Join(lines, "\n")
}

// TestNormalizeView: ages, pod suffixes, delays left, measurement counts
// and padding go; hashes become H<rev>; what a user reads stays.
func TestNormalizeView(t *testing.T) {
	out := "Name:            app\n" +
		"NAME                       KIND        STATUS     AGE    INFO\n" +
		"⟳ app                      Rollout     ✔ Healthy  3m4s   \n" +
		"└──⧉ app-abc123            ReplicaSet  ✔ Healthy  12s    delay:28s\n" +
		"   └──□ app-abc123-x7k2p   Pod         ✔ Running  12s    ready:1/1\n" +
		"└──α app-abc123-2          AnalysisRun ✔ Successful 5s  ✔ 6\n"
	got := normalizeView(newNormalizer(map[string]string{"abc123": "H2"}), out)
	want := "Name: app\n" +
		"NAME KIND STATUS AGE INFO\n" +
		"⟳ app Rollout ✔ Healthy\n" +
		"└──⧉ app-H2 ReplicaSet ✔ Healthy delay:<left>\n" +
		" └──□ app-H2-<pod> Pod ✔ Running ready:1/1\n" +
		"└──α app-H2-2 AnalysisRun ✔ Successful ✔ <n>"
	if got != want {
		t.Errorf("normalized:\n%s\nwant:\n%s", got, want)
	}
}
