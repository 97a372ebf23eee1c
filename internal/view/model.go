package view

// RolloutView is the display model of one Rollout, as `get rollout` shows it.
type RolloutView struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Strategy is "Canary" or "BlueGreen".
	Strategy string `json:"strategy"`
	Status   Status `json:"status"`
	Message  string `json:"message,omitempty"`
	// Step is "index/steps" for a canary with steps, else empty.
	Step string `json:"step,omitempty"`
	// SetWeight is the canary weight the current step asks for (canary only).
	SetWeight *int32 `json:"setWeight,omitempty"`
	// ActualWeight is the weight set on the traffic router, or without one
	// the canary's share of the available pods (canary only).
	ActualWeight *int32     `json:"actualWeight,omitempty"`
	Images       []Image    `json:"images,omitempty"`
	Replicas     Replicas   `json:"replicas"`
	Age          string     `json:"age,omitempty"`
	Revisions    []Revision `json:"revisions,omitempty"`
	// AnalysisRuns are the runs that belong to no known revision.
	AnalysisRuns []AnalysisRun `json:"analysisRuns,omitempty"`
	// Experiments are the Experiments that belong to no known revision.
	Experiments []Experiment `json:"experiments,omitempty"`
}

// Status is a phase or pod state with the symbol shown before it.
type Status struct {
	Name string `json:"name"`
	Icon string `json:"icon"`
}

func (s Status) String() string { return s.Icon + " " + s.Name }

// Symbols used before statuses.
const (
	IconOK          = "✔"
	IconBad         = "✖"
	IconProgressing = "◌"
	IconPaused      = "॥"
	IconWarning     = "⚠"
	IconUnknown     = "?"
	IconScaledDown  = "•"
)

// Markers are the roles a ReplicaSet (or its image) holds.
const (
	MarkerStable  = "stable"
	MarkerCanary  = "canary"
	MarkerActive  = "active"
	MarkerPreview = "preview"
)

// Image is a container image and the roles of the ReplicaSets running it.
type Image struct {
	Image   string   `json:"image"`
	Markers []string `json:"markers,omitempty"`
}

// Replicas are the Rollout's pod counts.
type Replicas struct {
	Desired   int32 `json:"desired"`
	Current   int32 `json:"current"`
	Updated   int32 `json:"updated"`
	Ready     int32 `json:"ready"`
	Available int32 `json:"available"`
}

// Revision is one rollout revision: its ReplicaSets, AnalysisRuns and
// Experiments.
type Revision struct {
	Number       int64         `json:"number"`
	ReplicaSets  []ReplicaSet  `json:"replicaSets,omitempty"`
	AnalysisRuns []AnalysisRun `json:"analysisRuns,omitempty"`
	Experiments  []Experiment  `json:"experiments,omitempty"`
}

// ReplicaSet is one ReplicaSet of a revision.
type ReplicaSet struct {
	Name    string   `json:"name"`
	Hash    string   `json:"hash"`
	Status  Status   `json:"status"`
	Markers []string `json:"markers,omitempty"`
	// Delay is the time left before a scale-down delay ends ("25s"),
	// "passed" once it has, or empty.
	Delay   string `json:"delay,omitempty"`
	Ready   int32  `json:"ready"`
	Desired int32  `json:"desired"`
	Age     string `json:"age,omitempty"`
	Pods    []Pod  `json:"pods,omitempty"`
}

// Pod is one pod of a ReplicaSet.
type Pod struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Ready is "ready containers/containers".
	Ready    string `json:"ready"`
	Restarts int32  `json:"restarts"`
	Age      string `json:"age,omitempty"`
}

// AnalysisRun is one AnalysisRun with its measurement counts summed over
// its metrics.
type AnalysisRun struct {
	Name         string `json:"name"`
	Status       Status `json:"status"`
	Successful   int32  `json:"successful"`
	Failed       int32  `json:"failed"`
	Inconclusive int32  `json:"inconclusive"`
	Error        int32  `json:"error"`
	Age          string `json:"age,omitempty"`
}

// RolloutRow is one line of the rollout list table.
type RolloutRow struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Strategy  string `json:"strategy"`
	Status    string `json:"status"`
	// Step and SetWeight are "-" when they do not apply.
	Step      string `json:"step"`
	SetWeight string `json:"setWeight"`
	// Ready is "ready/current".
	Ready     string `json:"ready"`
	Desired   int32  `json:"desired"`
	UpToDate  int32  `json:"upToDate"`
	Available int32  `json:"available"`
}
