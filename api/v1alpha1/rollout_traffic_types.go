package v1alpha1

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// RolloutTrafficRouting configures the traffic routers that split traffic
// between the stable and canary Services. Several routers may be set at once.
type RolloutTrafficRouting struct {
	// Istio routes with VirtualServices (and optionally a DestinationRule).
	// +optional
	Istio *IstioTrafficRouting `json:"istio,omitempty"`
	// Nginx routes with a canary copy of the stable Ingress(es).
	// +optional
	Nginx *NginxTrafficRouting `json:"nginx,omitempty"`
	// ALB routes with AWS Load Balancer Controller action annotations.
	// +optional
	ALB *ALBTrafficRouting `json:"alb,omitempty"`
	// SMI routes with a Service Mesh Interface TrafficSplit.
	// +optional
	SMI *SMITrafficRouting `json:"smi,omitempty"`
	// Ambassador routes with Ambassador Mappings.
	// +optional
	Ambassador *AmbassadorTrafficRouting `json:"ambassador,omitempty"`
	// AppMesh routes with an AWS App Mesh virtual router.
	// +optional
	AppMesh *AppMeshTrafficRouting `json:"appMesh,omitempty"`
	// Traefik routes with a weighted TraefikService.
	// +optional
	Traefik *TraefikTrafficRouting `json:"traefik,omitempty"`
	// Apisix routes with an APISIX ApisixRoute.
	// +optional
	Apisix *ApisixTrafficRouting `json:"apisix,omitempty"`

	// ManagedRoutes lists, in precedence order, the routes the controller
	// may create for setHeaderRoute and setMirrorRoute steps. They are placed
	// above any routes already defined in the router.
	// +optional
	ManagedRoutes []ManagedRoute `json:"managedRoutes,omitempty"`

	// MaxTrafficWeight is the total traffic weight that setWeight and
	// setCanaryScale.weight are expressed in (nginx and plugins). Defaults
	// to 100 (DefaultMaxTrafficWeight).
	// +optional
	MaxTrafficWeight *int32 `json:"maxTrafficWeight,omitempty"`

	// Plugins maps a traffic router plugin name (e.g.
	// "argoproj-labs/gatewayAPI") to its configuration, kept as is.
	// +optional
	Plugins map[string]apiextensionsv1.JSON `json:"plugins,omitempty"`
}

// ManagedRoute names a route the controller manages.
type ManagedRoute struct {
	// +required
	Name string `json:"name"`
}

// IstioTrafficRouting routes with Istio. Set virtualService or
// virtualServices, not both (the controller reports both as InvalidSpec).
type IstioTrafficRouting struct {
	// VirtualService is the one VirtualService to update.
	// +optional
	VirtualService *IstioVirtualService `json:"virtualService,omitempty"`
	// VirtualServices are several VirtualServices to update.
	// +optional
	VirtualServices []IstioVirtualService `json:"virtualServices,omitempty"`
	// DestinationRule, when set, splits by subsets of one host instead of by
	// the canary and stable Services.
	// +optional
	DestinationRule *IstioDestinationRule `json:"destinationRule,omitempty"`
}

// IstioVirtualService names a VirtualService and the routes in it to update.
type IstioVirtualService struct {
	// Name of the VirtualService.
	// +required
	Name string `json:"name"`
	// Routes are the HTTP routes to update; optional when the VirtualService
	// has a single HTTP route.
	// +optional
	Routes []string `json:"routes,omitempty"`
	// TLSRoutes are the TLS routes to update.
	// +optional
	TLSRoutes []TLSRoute `json:"tlsRoutes,omitempty"`
	// TCPRoutes are the TCP routes to update.
	// +optional
	TCPRoutes []TCPRoute `json:"tcpRoutes,omitempty"`
}

// TLSRoute selects TLS routes of a VirtualService by port and SNI hosts.
type TLSRoute struct {
	// +optional
	Port int64 `json:"port,omitempty"`
	// +optional
	SNIHosts []string `json:"sniHosts,omitempty"`
}

// TCPRoute selects TCP routes of a VirtualService by port.
type TCPRoute struct {
	// +optional
	Port int64 `json:"port,omitempty"`
}

// IstioDestinationRule names a DestinationRule and its stable and canary
// subsets.
type IstioDestinationRule struct {
	// +required
	Name string `json:"name"`
	// +required
	CanarySubsetName string `json:"canarySubsetName"`
	// +required
	StableSubsetName string `json:"stableSubsetName"`
	// AdditionalSubsetNames are further subsets the controller keeps
	// pointing at the stable pods.
	// +optional
	AdditionalSubsetNames []string `json:"additionalSubsetNames,omitempty"`
}

// NginxTrafficRouting routes with the NGINX Ingress Controller. Set
// stableIngress or stableIngresses, not both (the controller reports both as InvalidSpec).
type NginxTrafficRouting struct {
	// AnnotationPrefix is the controller's annotation prefix. Defaults to
	// nginx.ingress.kubernetes.io (DefaultNginxAnnotationPrefix).
	// +optional
	AnnotationPrefix string `json:"annotationPrefix,omitempty"`
	// StableIngress is the Ingress that routes to the stable Service.
	// +optional
	StableIngress string `json:"stableIngress,omitempty"`
	// StableIngresses are several Ingresses that route to the stable Service.
	// +optional
	StableIngresses []string `json:"stableIngresses,omitempty"`
	// AdditionalIngressAnnotations are extra canary annotations (without the
	// prefix), e.g. canary-by-header.
	// +optional
	AdditionalIngressAnnotations map[string]string `json:"additionalIngressAnnotations,omitempty"`
	// CanaryIngressAnnotations are extra annotations, taken as is, for the
	// canary Ingress.
	// +optional
	CanaryIngressAnnotations map[string]string `json:"canaryIngressAnnotations,omitempty"`
}

// ALBTrafficRouting routes with the AWS Load Balancer Controller.
type ALBTrafficRouting struct {
	// Ingress is the Ingress to update.
	// +optional
	Ingress string `json:"ingress,omitempty"`
	// Ingresses are several Ingresses to update.
	// +optional
	Ingresses []string `json:"ingresses,omitempty"`
	// ServicePort is the Service port the Ingress routes to.
	// +required
	ServicePort int32 `json:"servicePort"`
	// AnnotationPrefix is the controller's annotation prefix. Defaults to
	// alb.ingress.kubernetes.io (DefaultALBAnnotationPrefix).
	// +optional
	AnnotationPrefix string `json:"annotationPrefix,omitempty"`
	// RootService is the Service the Ingress routes to, when it differs from
	// the stable Service.
	// +optional
	RootService string `json:"rootService,omitempty"`
	// StickinessConfig sets target-group stickiness on the forward action.
	// +optional
	StickinessConfig *StickinessConfig `json:"stickinessConfig,omitempty"`
}

// StickinessConfig is ALB target-group stickiness.
type StickinessConfig struct {
	// +required
	Enabled bool `json:"enabled"`
	// +required
	DurationSeconds int64 `json:"durationSeconds"`
}

// SMITrafficRouting routes with an SMI TrafficSplit.
type SMITrafficRouting struct {
	// RootService is the Service clients address. Defaults to the stable
	// Service.
	// +optional
	RootService string `json:"rootService,omitempty"`
	// TrafficSplitName is the TrafficSplit to create or update. Defaults to
	// the Rollout's name.
	// +optional
	TrafficSplitName string `json:"trafficSplitName,omitempty"`
}

// AmbassadorTrafficRouting routes with Ambassador (Emissary) Mappings.
type AmbassadorTrafficRouting struct {
	// Mappings are the Mappings to clone for the canary.
	// +required
	Mappings []string `json:"mappings"`
}

// AppMeshTrafficRouting routes with AWS App Mesh.
type AppMeshTrafficRouting struct {
	// VirtualService whose virtual router is updated.
	// +optional
	VirtualService *AppMeshVirtualService `json:"virtualService,omitempty"`
	// VirtualNodeGroup holds the canary and stable virtual nodes.
	// +optional
	VirtualNodeGroup *AppMeshVirtualNodeGroup `json:"virtualNodeGroup,omitempty"`
}

// AppMeshVirtualService names an App Mesh virtual service and its routes.
type AppMeshVirtualService struct {
	// +required
	Name string `json:"name"`
	// +optional
	Routes []string `json:"routes,omitempty"`
}

// AppMeshVirtualNodeGroup names the canary and stable virtual nodes.
type AppMeshVirtualNodeGroup struct {
	// +required
	CanaryVirtualNodeRef *AppMeshVirtualNodeReference `json:"canaryVirtualNodeRef"`
	// +required
	StableVirtualNodeRef *AppMeshVirtualNodeReference `json:"stableVirtualNodeRef"`
}

// AppMeshVirtualNodeReference names an App Mesh virtual node.
type AppMeshVirtualNodeReference struct {
	// +required
	Name string `json:"name"`
}

// TraefikTrafficRouting routes with a weighted TraefikService.
type TraefikTrafficRouting struct {
	// +required
	WeightedTraefikServiceName string `json:"weightedTraefikServiceName"`
}

// ApisixTrafficRouting routes with Apache APISIX.
type ApisixTrafficRouting struct {
	// +optional
	Route *ApisixRoute `json:"route,omitempty"`
}

// ApisixRoute names an ApisixRoute and the rules in it to update.
type ApisixRoute struct {
	// +required
	Name string `json:"name"`
	// +optional
	Rules []string `json:"rules,omitempty"`
}
