package lint

import (
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

// decoder decodes the kinds lint knows, strictly (unknown and duplicate
// fields are reported, the object is still returned), without defaulting.
var decoder = func() runtime.Decoder {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{rampv1.AddToScheme, autoscalingv1.AddToScheme,
		autoscalingv2.AddToScheme, batchv1.AddToScheme, corev1.AddToScheme, networkingv1.AddToScheme,
		extensionsv1beta1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}()

// decode returns the typed object, nil and no error for a kind lint does not
// know, and an error for a strict-decoding problem (with the object) or a
// value of the wrong type (without it).
func decode(o *Object) (runtime.Object, error) {
	obj, _, err := decoder.Decode(o.JSON, nil, nil)
	if runtime.IsNotRegisteredError(err) {
		return nil, nil
	}
	return obj, err
}

// hpaDoc is a HorizontalPodAutoscaler, either version, reduced to what the
// rules need.
type hpaDoc struct {
	obj       *Object
	namespace string
	target    autoscalingv2.CrossVersionObjectReference
	metrics   []autoscalingv2.MetricSpec
	// path is where the metrics are in the manifest.
	path string
}

// hookDoc is a Job or Pod annotated as an Argo CD hook.
type hookDoc struct {
	obj        *Object
	phases     []string // argocd.argoproj.io/hook, split
	containers []corev1.Container
	path       string // field path of the containers
}

// hookAnnotation marks an Argo CD resource hook.
const hookAnnotation = "argocd.argoproj.io/hook"

// defaultCPU is the metric an HPA uses when it names none.
func defaultCPU(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent}}}
}

// addWorkload indexes HPAs and Argo CD hooks.
func (ix *index) addWorkload(o *Object, obj runtime.Object) {
	switch v := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		h := hpaDoc{obj: o, namespace: v.Namespace, target: v.Spec.ScaleTargetRef, metrics: v.Spec.Metrics, path: "spec.metrics"}
		if len(h.metrics) == 0 {
			h.metrics, h.path = []autoscalingv2.MetricSpec{defaultCPU(80)}, "spec"
		}
		ix.hpas = append(ix.hpas, h)
	case *autoscalingv1.HorizontalPodAutoscaler:
		pct := int32(80)
		if p := v.Spec.TargetCPUUtilizationPercentage; p != nil {
			pct = *p
		}
		ref := v.Spec.ScaleTargetRef
		ix.hpas = append(ix.hpas, hpaDoc{obj: o, namespace: v.Namespace, path: "spec.targetCPUUtilizationPercentage",
			target:  autoscalingv2.CrossVersionObjectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name},
			metrics: []autoscalingv2.MetricSpec{defaultCPU(pct)}})
	case *batchv1.Job:
		ix.addHook(o, v.Annotations, v.Spec.Template.Spec.Containers, "spec.template.spec.containers")
	case *corev1.Pod:
		ix.addHook(o, v.Annotations, v.Spec.Containers, "spec.containers")
	case *corev1.Service:
		ix.addService(o, v)
	case *networkingv1.Ingress:
		ix.addIngress(o, v)
	case *extensionsv1beta1.Ingress:
		ix.addLegacyIngress(o, v)
	}
}

func (ix *index) addHook(o *Object, annotations map[string]string, cs []corev1.Container, path string) {
	v, ok := annotations[hookAnnotation]
	if !ok {
		return
	}
	var phases []string
	for _, p := range strings.Split(v, ",") {
		phases = append(phases, strings.TrimSpace(p))
	}
	ix.hooks = append(ix.hooks, hookDoc{obj: o, phases: phases, containers: cs, path: path})
}

// targetRollout finds the Rollout an HPA scales, among the linted objects
// (nil when it is not among them). An empty namespace matches any.
func (ix *index) targetRollout(h hpaDoc) *rampv1.Rollout {
	if h.target.Kind != "Rollout" || !strings.HasPrefix(h.target.APIVersion, rampv1.GroupVersion.Group+"/") {
		return nil
	}
	for _, r := range ix.rollouts {
		ns := r.ro.Namespace
		if r.ro.Name == h.target.Name && (ns == "" || h.namespace == "" || ns == h.namespace) {
			return r.ro
		}
	}
	return nil
}

// utilizationMetric reports whether m is a Resource or ContainerResource
// metric with a Utilization target (a percentage of the pods' requests), and
// of which resource and container ("" for every container).
func utilizationMetric(m autoscalingv2.MetricSpec) (resource corev1.ResourceName, container string, ok bool) {
	var t autoscalingv2.MetricTarget
	switch {
	case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
		resource, t = m.Resource.Name, m.Resource.Target
	case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
		resource, container, t = m.ContainerResource.Name, m.ContainerResource.Container, m.ContainerResource.Target
	default:
		return "", "", false
	}
	return resource, container, t.Type == autoscalingv2.UtilizationMetricType
}

// ResourceMetric reports whether m scales on a resource (CPU, memory) of
// the pods or of one of their containers.
func ResourceMetric(m autoscalingv2.MetricSpec) bool {
	return (m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil) ||
		(m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil)
}

func indexed(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
