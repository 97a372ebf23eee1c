package v1alpha1

// Manifests written the way Argo Rollouts users write them (the project's
// seed documents and the upstream documentation examples). Each must decode
// strictly (no unknown field) and re-encode to the same document, so no
// upstream field is missing or renamed. Zero values are left out on
// purpose: the Go types omit them when encoding.
var analysisManifests = map[string]string{
	"seed-canary-success-rate": `
apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata:
  name: success-rate
spec:
  metrics:
    - name: success-rate
      interval: 5m
      successCondition: result[0] > 0
      failureLimit: 3
      provider:
        prometheus:
          address: http://10.233.14.47:9090
          query: |
            count(kube_deployment_labels{namespace="default", deployment="metric-dummy-server"})
`,
	"seed-bluegreen-success-rate": `
apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata:
  name: success-rate
spec:
  metrics:
    - name: success-rate10
      interval: 3s
      count: 2
      successCondition: result[0] = 0
      failureLimit: 3
      provider:
        prometheus:
          address: http://10.233.14.47:9090
          query: |
            count(kube_deployment_labels{namespace="default", deployment="metric-dummy-server"})
`,
	"args-secret-web": `
apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata:
  name: args-example
spec:
  args:
  - name: service-name
  - name: api-url
    value: http://example/measure
  - name: api-token
    valueFrom:
      secretKeyRef:
        name: token-secret
        key: apiToken
  - name: region
    valueFrom:
      fieldRef:
        fieldPath: metadata.labels['region']
  metrics:
  - name: webmetric
    successCondition: result == 'true'
    initialDelay: 1m
    inconclusiveLimit: 2
    consecutiveErrorLimit: "{{args.error-limit}}"
    consecutiveSuccessLimit: 3
    provider:
      web:
        url: "{{ args.api-url }}?service={{ args.service-name }}"
        headers:
        - key: Authorization
          value: "Bearer {{ args.api-token }}"
        jsonPath: "{$.results.ok}"
  dryRun:
  - metricName: .*
  measurementRetention:
  - metricName: webmetric
    limit: 20
  templates:
  - templateName: error-rate
  - templateName: global-latency
    clusterScope: true
`,
	"providers": `
apiVersion: argoproj.io/v1alpha1
kind: ClusterAnalysisTemplate
metadata:
  name: all-providers
spec:
  metrics:
  - name: prom
    failureCondition: result[0] >= 10
    provider:
      prometheus:
        address: https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1
        query: sum(up)
        timeout: 40
        insecure: true
        headers:
        - key: X-Scope-OrgID
          value: tenant_a
        authentication:
          sigv4:
            region: eu-west-1
            profile: default
            roleArn: arn:aws:iam::1:role/r
          oauth2:
            tokenUrl: https://idp/token
            clientId: id
            clientSecret: secret
            scopes: [read]
        rangeQuery:
          start: now() - duration('5m')
          end: now()
          step: 1m
  - name: web-post
    provider:
      web:
        method: POST
        url: https://example.com/api
        timeoutSeconds: 20
        insecure: true
        jsonBody:
          key1: value1
          nested: {list: [1, 2]}
        authentication:
          oauth2:
            tokenUrl: https://idp/token
            clientId: id
  - name: web-body
    provider:
      web:
        method: PUT
        url: https://example.com/api
        body: '{"a": 1}'
  - name: datadog
    provider:
      datadog:
        apiVersion: v2
        interval: 5m
        queries:
          a: sum:requests.error.count{service:x}
          b: sum:requests.request.count{service:x}
        formula: a / b
        aggregator: avg
        secretRef:
          name: my-datadog
          namespaced: true
  - name: datadog-v1
    provider:
      datadog:
        query: sum:requests.error.rate{service:x}
  - name: wavefront
    provider:
      wavefront:
        address: example.wavefront.com
        query: ts(a)
  - name: newrelic
    provider:
      newRelic:
        profile: my-newrelic-secret
        query: FROM Transaction SELECT count(*)
        timeout: 10
  - name: job
    provider:
      job:
        metadata:
          annotations: {foo: bar}
          labels: {foo: bar}
        spec:
          backoffLimit: 1
          template:
            metadata:
              labels: {app: test}
            spec:
              containers:
              - name: test
                image: my-image:latest
                command: [my-test-script, my-service.default.svc.cluster.local]
              restartPolicy: Never
  - name: kayenta
    provider:
      kayenta:
        address: http://kayenta:8090
        application: guestbook
        canaryConfigName: my-config
        metricsAccountName: wavefront-prod
        configurationAccountName: intuit-kayenta
        storageAccountName: intuit-kayenta
        threshold:
          pass: 90
          marginal: 75
        scopes:
        - name: default
          controlScope:
            scope: app=guestbook
            region: us-west-2
            step: 60
            start: "2020-01-01T00:00:00Z"
            end: "2020-01-01T01:00:00Z"
          experimentScope:
            scope: app=guestbook
            region: us-west-2
            step: 60
            start: "2020-01-01T00:00:00Z"
            end: "2020-01-01T01:00:00Z"
  - name: cloudwatch
    provider:
      cloudWatch:
        interval: 5m
        metricDataQueries:
        - id: rate
          expression: errors / requests
          returnData: true
        - id: errors
          metricStat:
            metric:
              namespace: app
              metricName: errors
              dimensions:
              - name: svc
                value: x
            period: 300
            stat: Sum
            unit: Count
          returnData: false
          period: 60
  - name: graphite
    provider:
      graphite:
        address: http://graphite.example.com:9090
        query: target=summarize(x)
  - name: influxdb
    provider:
      influxdb:
        profile: my-influxdb-secret
        query: from(bucket:"app")
  - name: skywalking
    provider:
      skywalking:
        address: http://skywalking-oap:12800
        interval: 3m
        query: 'query queryData($duration: Duration!) { x }'
  - name: plugin
    provider:
      plugin:
        argoproj-labs/sample-prometheus:
          address: http://prometheus.local
          query: up
`,
	"analysisrun": `
apiVersion: argoproj.io/v1alpha1
kind: AnalysisRun
metadata:
  name: guestbook-6c54544bf9-2
spec:
  args:
  - name: service-name
    value: guestbook-svc.default.svc.cluster.local
  metrics:
  - name: success-rate
    interval: 5m
    successCondition: result >= 0.95
    failureLimit: 3
    provider:
      prometheus:
        address: http://prometheus.example.com:9090
        query: sum(x)
  terminate: true
  dryRun:
  - metricName: success-rate
  measurementRetention:
  - metricName: success-rate
    limit: 5
  ttlStrategy:
    secondsAfterCompletion: 3600
    secondsAfterSuccess: 1800
    secondsAfterFailure: 1800
status:
  phase: Successful
  message: done
  startedAt: "2024-01-01T00:00:00Z"
  completedAt: "2024-01-01T00:10:00Z"
  runSummary:
    count: 1
    successful: 1
  dryRunSummary:
    count: 1
    failed: 1
  metricResults:
  - name: success-rate
    phase: Successful
    message: ok
    count: 2
    successful: 1
    failed: 1
    inconclusive: 1
    error: 1
    consecutiveError: 1
    consecutiveSuccess: 1
    dryRun: true
    metadata:
      ResolvedPrometheusQuery: sum(x)
    measurements:
    - phase: Successful
      value: "[0.99]"
      message: ok
      startedAt: "2024-01-01T00:00:00Z"
      finishedAt: "2024-01-01T00:00:01Z"
      resumeAt: "2024-01-01T00:05:00Z"
      metadata:
        job-name: x
`,
	"experiment": `
apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata:
  name: example-experiment
spec:
  duration: 20m
  progressDeadlineSeconds: 30
  scaleDownDelaySeconds: 10
  terminate: true
  templates:
  - name: purple
    replicas: 1
    minReadySeconds: 5
    selector:
      matchLabels:
        app: canary-demo
        color: purple
    template:
      metadata:
        labels:
          app: canary-demo
          color: purple
      spec:
        containers:
        - name: guestbook
          image: argoproj/rollouts-demo:purple
    service:
      name: purple-svc
  analyses:
  - name: purple
    templateName: http-benchmark
    clusterScope: true
    requiredForCompletion: true
    args:
    - name: host
      value: purple
  dryRun:
  - metricName: total-5xx-errors
  measurementRetention:
  - metricName: total-5xx-errors
    limit: 10
  analysisRunMetadata:
    labels: {team: a}
    annotations: {note: b}
status:
  phase: Running
  message: running
  availableAt: "2024-01-01T00:00:00Z"
  templateStatuses:
  - name: purple
    replicas: 1
    updatedReplicas: 1
    readyReplicas: 1
    availableReplicas: 1
    collisionCount: 1
    status: Running
    message: ok
    lastTransitionTime: "2024-01-01T00:00:00Z"
    serviceName: purple-svc
    podTemplateHash: 5d8f4c7b9
  conditions:
  - type: Progressing
    status: "True"
    reason: NewReplicaSetAvailable
    message: Experiment "example-experiment" is running.
    lastUpdateTime: "2024-01-01T00:00:00Z"
    lastTransitionTime: "2024-01-01T00:00:00Z"
  analysisRuns:
  - name: purple
    analysisRun: example-experiment-purple
    phase: Running
    message: ok
`,
}
