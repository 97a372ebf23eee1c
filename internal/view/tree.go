package view

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// revisions groups the ReplicaSets, with their pods, and the AnalysisRuns by
// revision, newest first. Runs whose revision is unknown are returned apart.
func revisions(ro *rampv1.Rollout, rss []appsv1.ReplicaSet, pods []corev1.Pod, runs []rampv1.AnalysisRun, now time.Time) ([]Revision, []AnalysisRun) {
	byNum := map[int64]*Revision{}
	revOfHash := map[string]int64{}
	get := func(n int64) *Revision {
		if byNum[n] == nil {
			byNum[n] = &Revision{Number: n}
		}
		return byNum[n]
	}
	for i := range rss {
		rs := &rss[i]
		n := revisionOf(&rs.ObjectMeta)
		revOfHash[rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]] = n
		r := get(n)
		r.ReplicaSets = append(r.ReplicaSets, replicaSet(ro, rs, pods, now))
	}
	var loose []AnalysisRun
	for i := range runs {
		ar := &runs[i]
		n := revisionOf(&ar.ObjectMeta)
		if n == 0 {
			if rn, ok := revOfHash[ar.Labels[rampv1.DefaultRolloutUniqueLabelKey]]; ok && ar.Labels[rampv1.DefaultRolloutUniqueLabelKey] != "" {
				n = rn
			}
		}
		if n == 0 {
			loose = append(loose, analysisRun(ar, now))
			continue
		}
		r := get(n)
		r.AnalysisRuns = append(r.AnalysisRuns, analysisRun(ar, now))
	}
	out := make([]Revision, 0, len(byNum))
	for _, r := range byNum {
		slices.SortFunc(r.ReplicaSets, func(a, b ReplicaSet) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortFunc(r.AnalysisRuns, func(a, b AnalysisRun) int { return cmp.Compare(a.Name, b.Name) })
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Revision) int { return cmp.Compare(b.Number, a.Number) })
	slices.SortFunc(loose, func(a, b AnalysisRun) int { return cmp.Compare(a.Name, b.Name) })
	return out, loose
}

func revisionOf(m *metav1.ObjectMeta) int64 {
	n, _ := strconv.ParseInt(m.Annotations[rampv1.RevisionAnnotation], 10, 64) // missing or not a number: revision 0
	return n
}

func replicaSet(ro *rampv1.Rollout, rs *appsv1.ReplicaSet, pods []corev1.Pod, now time.Time) ReplicaSet {
	desired := int32(1)
	if rs.Spec.Replicas != nil {
		desired = *rs.Spec.Replicas
	}
	hash := rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]
	v := ReplicaSet{
		Name:    rs.Name,
		Hash:    hash,
		Markers: markers(ro, hash),
		Ready:   rs.Status.ReadyReplicas,
		Desired: desired,
		Age:     Age(rs.CreationTimestamp.Time, now),
	}
	switch {
	case desired == 0:
		v.Status = Status{Name: "ScaledDown", Icon: IconScaledDown}
	case rs.Status.AvailableReplicas < desired:
		v.Status = Status{Name: "Progressing", Icon: IconProgressing}
	default:
		v.Status = Status{Name: "Healthy", Icon: IconOK}
	}
	if s := rs.Annotations[rampv1.ScaleDownDeadlineAnnotation]; s != "" && desired > 0 {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			v.Delay = "passed"
			if t.After(now) {
				v.Delay = short(t.Sub(now))
			}
		}
	}
	for i := range pods {
		if ownedBy(&pods[i], rs) {
			v.Pods = append(v.Pods, pod(&pods[i], now))
		}
	}
	slices.SortFunc(v.Pods, func(a, b Pod) int { return cmp.Compare(a.Name, b.Name) })
	return v
}

// ownedBy: the pod's controller is rs or, without a controller, it carries
// rs's pod-template hash.
func ownedBy(p *corev1.Pod, rs *appsv1.ReplicaSet) bool {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return ref.UID == rs.UID && ref.Name == rs.Name
	}
	h := rs.Labels[rampv1.DefaultRolloutUniqueLabelKey]
	return h != "" && p.Labels[rampv1.DefaultRolloutUniqueLabelKey] == h
}

// markers are the roles of the ReplicaSet with pod-template hash h.
func markers(ro *rampv1.Rollout, h string) []string {
	st := &ro.Status
	var m []string
	if h == "" {
		return nil
	}
	if h == st.StableRS {
		m = append(m, MarkerStable)
	}
	if ro.Spec.Strategy.BlueGreen != nil {
		if h == st.BlueGreen.ActiveSelector {
			m = append(m, MarkerActive)
		}
		if h == st.BlueGreen.PreviewSelector && h != st.BlueGreen.ActiveSelector {
			m = append(m, MarkerPreview)
		}
		return m
	}
	if h == st.CurrentPodHash && h != st.StableRS {
		m = append(m, MarkerCanary)
	}
	return m
}

func analysisRun(ar *rampv1.AnalysisRun, now time.Time) AnalysisRun {
	v := AnalysisRun{Name: ar.Name, Status: analysisStatus(ar.Status.Phase), Age: Age(ar.CreationTimestamp.Time, now)}
	for _, m := range ar.Status.MetricResults {
		v.Successful += m.Successful
		v.Failed += m.Failed
		v.Inconclusive += m.Inconclusive
		v.Error += m.Error
	}
	return v
}

func analysisStatus(p rampv1.AnalysisPhase) Status {
	switch p {
	case rampv1.AnalysisPhaseSuccessful:
		return Status{Name: string(p), Icon: IconOK}
	case rampv1.AnalysisPhaseFailed:
		return Status{Name: string(p), Icon: IconBad}
	case rampv1.AnalysisPhaseError:
		return Status{Name: string(p), Icon: IconWarning}
	case rampv1.AnalysisPhaseInconclusive:
		return Status{Name: string(p), Icon: IconUnknown}
	case "":
		return Status{Name: string(rampv1.AnalysisPhasePending), Icon: IconProgressing}
	}
	return Status{Name: string(p), Icon: IconProgressing}
}

// images lists the container images of the ReplicaSets that hold a role or
// run pods, each with the roles of those ReplicaSets, newest revision first.
func images(revs []Revision, rss []appsv1.ReplicaSet) []Image {
	byName := map[string]*appsv1.ReplicaSet{}
	for i := range rss {
		byName[rss[i].Name] = &rss[i]
	}
	var out []Image
	for _, rev := range revs {
		for _, v := range rev.ReplicaSets {
			if len(v.Markers) == 0 && v.Desired == 0 {
				continue
			}
			for _, c := range byName[v.Name].Spec.Template.Spec.Containers {
				i := slices.IndexFunc(out, func(im Image) bool { return im.Image == c.Image })
				if i < 0 {
					out = append(out, Image{Image: c.Image})
					i = len(out) - 1
				}
				for _, m := range v.Markers {
					if !slices.Contains(out[i].Markers, m) {
						out[i].Markers = append(out[i].Markers, m)
					}
				}
			}
		}
	}
	return out
}
