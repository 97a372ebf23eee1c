package podtemplate

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Defaulted returns a copy of t with the API server's defaults applied.
func Defaulted(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	t = t.DeepCopy()
	s := &t.Spec
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr(int64(corev1.DefaultTerminationGracePeriodSeconds))
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range s.Volumes {
		volume(&s.Volumes[i])
	}
	for i := range s.InitContainers {
		container(&s.InitContainers[i])
	}
	for i := range s.Containers {
		container(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		c := corev1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		container(&c)
		s.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

const defaultMode = int32(0o644)

func volume(v *corev1.Volume) {
	src := &v.VolumeSource
	switch {
	case *src == corev1.VolumeSource{}:
		src.EmptyDir = &corev1.EmptyDirVolumeSource{}
	case src.Secret != nil && src.Secret.DefaultMode == nil:
		src.Secret.DefaultMode = ptr(defaultMode)
	case src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil:
		src.ConfigMap.DefaultMode = ptr(defaultMode)
	case src.Projected != nil && src.Projected.DefaultMode == nil:
		src.Projected.DefaultMode = ptr(defaultMode)
	case src.DownwardAPI != nil && src.DownwardAPI.DefaultMode == nil:
		src.DownwardAPI.DefaultMode = ptr(defaultMode)
	case src.HostPath != nil && src.HostPath.Type == nil:
		src.HostPath.Type = ptr(corev1.HostPathUnset)
	}
	if d := src.DownwardAPI; d != nil {
		for i := range d.Items {
			fieldRef(d.Items[i].FieldRef)
		}
	}
	if p := src.Projected; p != nil {
		for _, s := range p.Sources {
			if s.DownwardAPI != nil {
				for i := range s.DownwardAPI.Items {
					fieldRef(s.DownwardAPI.Items[i].FieldRef)
				}
			}
			if s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds == nil {
				s.ServiceAccountToken.ExpirationSeconds = ptr(int64(3600))
			}
		}
	}
}

func fieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

func container(c *corev1.Container) {
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	for i := range c.Ports {
		p := &c.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if c.Env[i].ValueFrom != nil {
			fieldRef(c.Env[i].ValueFrom.FieldRef)
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		probe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				httpGet(h.HTTPGet)
			}
		}
	}
}

// pullPolicy is Always for an image without a tag or tagged latest (and no
// digest), IfNotPresent otherwise.
func pullPolicy(image string) corev1.PullPolicy {
	if strings.Contains(image, "@") {
		return corev1.PullIfNotPresent
	}
	name := image[strings.LastIndex(image, "/")+1:]
	tag := ""
	if i := strings.LastIndex(name, ":"); i >= 0 {
		tag = name[i+1:]
	}
	if tag == "" || tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func probe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	httpGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr("")
	}
}

func httpGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}
