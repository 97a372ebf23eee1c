package controlplane

// podStages is kwok's pod lifecycle. A config with any Pod Stage replaces all
// of kwok's built-in ones, so this covers the whole life of a pod: start
// (Running and Ready at once), the end of Job pods, and deletion. Node stages
// are not set, so kwok keeps its built-in ones.
//
// A Job pod ends as soon as it runs: Succeeded, unless the pod (its Job's
// template) has the annotation test.ramp.dev/exit-code with a value other
// than "0" or "": then it ends Failed, its containers terminated with that
// exit code and reason Error (a value that is not a number gives exit code 1).
//
// Selector keys are jq expressions over the pod (kwok uses gojq); the
// annotation query maps "absent" to "0" with jq's alternative operator, so
// complete and fail select disjoint sets of pods.
const podStages = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ramp-pod-run
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: .status.podIP, operator: DoesNotExist}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{- $now := Now | Quote }}
        phase: Running
        startTime: {{ $now }}
        hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
        podIP: {{ PodIPWith .spec.nodeName (or .spec.hostNetwork false) (or .metadata.uid "") (or .metadata.name "") (or .metadata.namespace "") | Quote }}
        conditions:
        {{- range list "Initialized" "ContainersReady" "Ready" }}
        - {type: {{ . }}, status: "True", lastTransitionTime: {{ $now }}}
        {{- end }}
        {{- range .spec.readinessGates }}
        - {type: {{ .conditionType | Quote }}, status: "True", lastTransitionTime: {{ $now }}}
        {{- end }}
        containerStatuses:
        {{- range .spec.containers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: true
          started: true
          restartCount: 0
          state: {running: {startedAt: {{ $now }}}}
        {{- end }}
        initContainerStatuses:
        {{- range .spec.initContainers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: true
          restartCount: 0
          {{- if eq (toString .restartPolicy) "Always" }}
          started: true
          state: {running: {startedAt: {{ $now }}}}
          {{- else }}
          started: false
          state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now }}, finishedAt: {{ $now }}}}
          {{- end }}
        {{- end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ramp-job-pod-succeed
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: .status.phase, operator: In, values: [Running]}
    - jq: {key: '.metadata.ownerReferences[].kind', operator: In, values: [Job]}
    - jq: {key: '.metadata.annotations["test.ramp.dev/exit-code"] // "0"', operator: In, values: ["0", ""]}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{- $now := Now | Quote }}
        phase: Succeeded
        conditions:
        - {type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now }}}
        - {type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now }}}
        containerStatuses:
        {{- range .spec.containers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: false
          started: false
          restartCount: 0
          state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $.status.startTime | Quote }}, finishedAt: {{ $now }}}}
        {{- end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ramp-job-pod-fail
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: .status.phase, operator: In, values: [Running]}
    - jq: {key: '.metadata.ownerReferences[].kind', operator: In, values: [Job]}
    - jq: {key: '.metadata.annotations["test.ramp.dev/exit-code"]', operator: Exists}
    - jq: {key: '.metadata.annotations["test.ramp.dev/exit-code"] // "0"', operator: NotIn, values: ["0", ""]}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{- $now := Now | Quote }}
        {{- $code := index .metadata.annotations "test.ramp.dev/exit-code" | atoi }}
        {{- if eq $code 0 }}{{ $code = 1 }}{{ end }}
        phase: Failed
        conditions:
        - {type: ContainersReady, status: "False", reason: PodFailed, lastTransitionTime: {{ $now }}}
        - {type: Ready, status: "False", reason: PodFailed, lastTransitionTime: {{ $now }}}
        containerStatuses:
        {{- range .spec.containers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: false
          started: false
          restartCount: 0
          state: {terminated: {exitCode: {{ $code }}, reason: Error, startedAt: {{ $.status.startTime | Quote }}, finishedAt: {{ $now }}}}
        {{- end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: ramp-pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: Exists}
  next:
    finalizers: {empty: true}
    delete: true
`
