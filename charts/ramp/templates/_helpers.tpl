{{- define "ramp.fullname" -}}
{{- default "ramp-controller" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ramp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ramp.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "ramp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ramp.fullname" . }}
{{- end -}}

{{- define "ramp.labels" -}}
{{ include "ramp.selectorLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "ramp.image" -}}
{{- $img := .Values.controller.image -}}
{{- $repo := ternary $img.repository (printf "%s/%s" $img.registry $img.repository) (empty $img.registry) -}}
{{- printf "%s:%s" $repo (default .Chart.AppVersion $img.tag) -}}
{{- end -}}

{{/* The rules of one generated role in files/role.yaml (a link to config/rbac/role.yaml), by kind. */}}
{{- define "ramp.generatedRules" -}}
{{- $kind := .kind -}}
{{- range splitList "---\n" (.root.Files.Get "files/role.yaml") -}}
{{- $doc := fromYaml . -}}
{{- if and $doc (eq (get $doc "kind") $kind) -}}
{{ toYaml $doc.rules }}
{{- end -}}
{{- end -}}
{{- end -}}
