/**
 * The differences between the embedded API server and kube-apiserver that the fidelity replay
 * tolerates, each with its reason and the upstream reference. docs/apiserver-fidelity.md lists them all
 * (a test checks that every id appears there), and the replay fails when an entry no longer matches
 * any difference.
 *
 * The goldens were recorded from kube-apiserver v1.24; the embedded server models v1.32. Most entries
 * are behaviour that changed between the two; the rest are things the embedded server does not do.
 */
import type { Allowance } from './diff.ts';

const absent = { absent: true } as const;

/** Every tolerated difference. */
export const allowances: readonly Allowance[] = [
  // ---- Kubernetes behaviour newer than 1.24 ----
  {
    id: 'discovery-singular-name',
    scenarios: /^(discovery\/|builtin\/discovery-)/,
    path: /\/resources\/[^/]+\/singularName$/,
    real: { equals: '' },
    reason: 'Discovery fills singularName for built-in resources since v1.27; v1.24 left it empty.',
    upstream: 'staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (SingularName from the storage, kubernetes/kubernetes 1.27)',
  },
  {
    id: 'removed-beta-groups',
    scenarios: /^discovery\/groups$/,
    path: /\/versions\/1$/,
    real: { test: (v) => typeof v === 'object' && v !== null && ['batch/v1beta1', 'policy/v1beta1'].includes((v as { groupVersion?: string }).groupVersion ?? '') },
    embedded: absent,
    reason: 'batch/v1beta1 (CronJob) and policy/v1beta1 (PodDisruptionBudget, PodSecurityPolicy) are no longer served since v1.25.',
    upstream: 'Kubernetes v1.25 deprecated API removals (kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25)',
  },
  {
    id: 'pdb-storage-version',
    scenarios: /^discovery\/batch-rbac-v1$/,
    path: /^\/steps\/2\/body\/resources\/0\/storageVersionHash$/,
    // base64(sha256("policy/v1beta1/PodDisruptionBudget")[:8]) and of policy/v1.
    real: { equals: '6BGBu0kpHtk=' },
    embedded: { equals: 'EVWiDmWqyJw=' },
    reason: 'PodDisruptionBudgets are stored as policy/v1 since v1.25 (policy/v1beta1 before), and the hash is of the storage version.',
    upstream: 'pkg/kubeapiserver/default_storage_factory_builder.go (v1.24 stores policy/v1beta1 PodDisruptionBudget)',
  },
  {
    id: 'endpointslice-storage-version',
    scenarios: /^builtin\/discovery-storage-node-discovery$/,
    path: /^\/steps\/2\/body\/resources\/0\/storageVersionHash$/,
    // base64(sha256("discovery.k8s.io/v1beta1/EndpointSlice")[:8]) and of discovery.k8s.io/v1.
    real: { equals: 'Nx3SIv6I0mE=' },
    embedded: { equals: 'qgS0xkrxYAI=' },
    reason: 'EndpointSlices are stored as discovery.k8s.io/v1 in v1.32 (discovery.k8s.io/v1beta1 in v1.24), and the hash is of the storage version.',
    upstream: 'pkg/kubeapiserver/default_storage_factory_builder.go',
  },
  {
    id: 'version-minor',
    scenarios: /^(discovery\/version|health\/version-and-root)$/,
    path: /\/body\/minor$/,
    real: { equals: '24' },
    embedded: { equals: '32' },
    reason: 'The embedded server reports the version it models, v1.32.',
    upstream: 'src/apiserver/handlers/non-resource.ts',
  },
  {
    id: 'statefulset-pvc-retention-default',
    scenarios: /^apps\/statefulset-verbs$/,
    path: /^\/steps\/0\/body\/spec\/persistentVolumeClaimRetentionPolicy$/,
    real: absent,
    embedded: { equals: { whenDeleted: 'Retain', whenScaled: 'Retain' } },
    reason: 'StatefulSetAutoDeletePVC is beta and on by default since v1.27, which defaults spec.persistentVolumeClaimRetentionPolicy.',
    upstream: 'pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet; KEP-1847',
  },
  {
    id: 'statefulset-ordinals-message',
    scenarios: /^apps\/statefulset-verbs$/,
    path: /^\/steps\/3\/body\/(message|details\/causes\/0\/message)$/,
    embedded: { pattern: /'replicas', 'ordinals', 'template'/ },
    reason: "spec.ordinals (StatefulSetStartOrdinal, beta since v1.27) may be updated, and the forbidden-update message lists it.",
    upstream: 'pkg/apis/apps/validation/validation.go ValidateStatefulSetUpdate; KEP-3335',
  },
  {
    id: 'job-batch-labels',
    scenarios: /^(batch\/job-create-defaults|batch\/kubectl-jobs|kubectl-create\/job)$/,
    path: /(\/labels\/batch\.kubernetes\.io\/(controller-uid|job-name)|\/matchLabels\/(batch\.kubernetes\.io\/)?controller-uid)$|^\/steps\/4\/stdout\/(\+?1)$/,
    reason: 'Since v1.27 a Job\'s generated selector and labels use batch.kubernetes.io/controller-uid and batch.kubernetes.io/job-name (the selector no longer uses controller-uid).',
    upstream: 'pkg/registry/batch/job/strategy.go generateSelector (kubernetes/kubernetes 1.27)',
  },
  {
    id: 'job-pod-replacement-policy',
    scenarios: /^batch\/job-create-defaults$/,
    path: /\/(f:spec\/f:)?podReplacementPolicy$/,
    real: absent,
    reason: 'JobPodReplacementPolicy (beta, on by default since v1.29) defaults spec.podReplacementPolicy to TerminatingOrFailed.',
    upstream: 'pkg/apis/batch/v1/defaults.go SetDefaults_Job; KEP-3939',
  },
  {
    id: 'job-and-cronjob-columns',
    scenarios: /^(batch\/kubectl-jobs|tables\/builtin-printers)$/,
    // kubectl's output; the Job Table (whose Selector cell also shows the job-batch-labels change).
    path: /^\/steps\/[234]\/stdout\/\+?[0-4]$|^\/steps\/7\/body\/(columnDefinitions\/\d+(\/name|\/priority)?|rows\/0\/cells\/\+?\d+)$/,
    reason: 'The Job table has a Status column and the CronJob table a Timezone column in v1.32; v1.24 had neither.',
    upstream: 'pkg/printers/internalversion/printers.go (jobColumnDefinitions, cronJobColumnDefinitions)',
  },
  {
    id: 'watch-list-options',
    scenarios: /^watch\/invalid-options$/,
    path: /^\/steps\/[012]\/(status|body|body\/message|body\/details\/causes\/0\/message)$/,
    reason: 'sendInitialEvents (streaming lists, alpha in v1.27) is validated since v1.27: a watch may use resourceVersionMatch only with it, it needs resourceVersionMatch=NotOlderThan, and a list may not use it. v1.24 ignored the parameter.',
    upstream: 'staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/validation/validation.go ValidateListOptions; KEP-3157',
  },
  {
    id: 'field-validation-default-warn',
    scenarios: /^negotiation\/json-decoding$/,
    path: /^\/steps\/[23]\/warnings$/,
    real: absent,
    reason: 'Without fieldValidation the server warns about duplicate and unknown fields since v1.27 (ServerSideFieldValidation GA, default Warn); v1.24 had the feature off.',
    upstream: 'staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go fieldValidation; KEP-2885',
  },
  {
    id: 'field-validation-directives',
    scenarios: /^options\/field-validation$/,
    path: /^\/steps\/(0\/(status|body(\/.*)?)|1\/warnings)$/,
    reason:
      'v1.24 ignores fieldValidation (ServerSideFieldValidation alpha, off by default): an unknown field is dropped whatever the directive. Since v1.25 (beta, on; GA v1.27) Strict refuses it with 400 "strict decoding error" and Warn answers with a Warning header, as the embedded server does.',
    upstream: 'staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go (fieldValidation, strict decoding); pkg/features/kube_features.go ServerSideFieldValidation; KEP-2885',
  },
  {
    id: 'openapi-field-validation-parameter',
    scenarios: /^openapi\/v3-group-version$/,
    path: /\/patch\/parameters\/(2\/name|2\/schema\/type|3)$/,
    reason: 'The fieldValidation query parameter is published since ServerSideFieldValidation is on (beta v1.25, GA v1.27).',
    upstream: 'staging/src/k8s.io/apiserver/pkg/endpoints/installer.go; KEP-2885',
  },
  {
    id: 'openapi-description-text',
    scenarios: /^openapi\/(v3-group-version|kubectl-explain-builtin)$/,
    path: /^\/steps\/0\/body\/components\/schemas\/io\.k8s\.api\.apps\.v1\.DeploymentSpec\/properties\/template\/description$|^\/steps\/2\/stdout\//,
    reason: 'Built-in schemas come from the API model generated from the v1.34 OpenAPI documents; some field descriptions were reworded after v1.24, and enum values are no longer listed for core/v1 ContainerPort.protocol.',
    upstream: 'src/codegen/model/kubernetes.json (Kubernetes 1.34 api/openapi-spec/v3)',
  },
  {
    id: 'too-long-message',
    scenarios: /^crd-schema\/(value-rules|served-versions)$/,
    path: /\/body\/(message|details\/causes\/0\/message)$/,
    real: { pattern: /Too long: may not be longer than \d+/ },
    embedded: { pattern: /Too long: may not be more than \d+ bytes/ },
    reason: 'field.TooLong says "may not be more than N bytes" in v1.32; v1.24 said "may not be longer than N". Custom resource maxLength failures are reported through it.',
    upstream: 'staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go TooLong (kubernetes/kubernetes 1.32); apiextensions-apiserver pkg/apiserver/validation/validation.go',
  },
  {
    id: 'cr-pruned-field-warnings',
    scenarios: /^crd-schema\/(pruning|served-versions)$/,
    path: /^\/steps\/\d+\/warnings$/,
    real: absent,
    embedded: { test: (v) => Array.isArray(v) && v.every((w) => typeof w === 'string' && w.startsWith('unknown field ')) },
    reason: 'The fields a custom resource write prunes are reported as unknown-field warnings since fieldValidation defaults to Warn (ServerSideFieldValidation GA, v1.27); v1.24 had the feature off and pruned silently.',
    upstream: 'staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go (returnUnknownFieldPaths); apiserver pkg/endpoints/handlers/rest.go; KEP-2885',
  },
  {
    id: 'cel-validation-rule-struct',
    scenarios: /^crd-cel\/invalid-rules$/,
    path: /^\/steps\/\d+\/body\/(message|details\/causes\/0\/message)$/,
    real: { pattern: /apiextensions\.ValidationRule\{Rule:"(?:[^"\\]|\\.)*", Message:"(?:[^"\\]|\\.)*"\}/ },
    embedded: { pattern: /apiextensions\.ValidationRule\{Rule:"(?:[^"\\]|\\.)*", Message:"(?:[^"\\]|\\.)*", MessageExpression:"(?:[^"\\]|\\.)*", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"(?:[^"\\]|\\.)*", OptionalOldSelf:\(\*bool\)\(nil\)\}/ },
    reason:
      'A rule that fails to compile is quoted with %#v of apiextensions.ValidationRule, which has gained MessageExpression (v1.27), Reason and FieldPath (v1.28) and OptionalOldSelf (v1.29); v1.24 printed Rule and Message only. Syntax errors are also worded by the cel-js parser rather than cel-go\'s ANTLR parser (v1.24: "mismatched input \'<EOF>\' expecting {...}").',
    upstream: 'staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/types_jsonschema.go ValidationRule; pkg/apis/apiextensions/validation/validation.go; github.com/google/cel-go parser',
  },
  // ---- Not modelled by the embedded server ----
  {
    id: 'openapi-parameter-descriptions',
    scenarios: /^openapi\/v3-group-version$/,
    path: /\/patch\/parameters\/\d+\/description$/,
    embedded: absent,
    reason: 'The query parameters of path operations carry no descriptions (the API model has schemas, not operations).',
    upstream: 'src/apiserver/openapi.ts',
  },
  {
    id: 'table-column-descriptions',
    scenarios: /^(tables\/|crd\/cr-table-columns$|builtin\/)/,
    path: /\/columnDefinitions\/\d+\/description$/,
    reason: "Table column descriptions are short texts of the embedded server's own; upstream takes most from the fields' API documentation.",
    upstream: 'pkg/printers/internalversion/printers.go (Description: ...SwaggerDoc())',
  },
  {
    id: 'job-template-immutable-value',
    scenarios: /^batch\/job-template-immutable$/,
    path: /^\/steps\/1\/body\/(message|details\/causes\/0\/message)$/,
    embedded: { pattern: /core\.PodTemplateSpec\{…\}: field is immutable/ },
    reason: 'The immutable-template error prints the whole internal PodTemplateSpec with %#v (Go type names, pointers, zero values); the embedded server abbreviates the value.',
    upstream: 'pkg/apis/batch/validation/validation.go ValidateJobSpecUpdate (apimachineryvalidation.ValidateImmutableField)',
  },
  {
    id: 'discovery-unserved-resources',
    scenarios: /^discovery\/core-v1-resources$/,
    path: /^\/steps\/1\/body\/resources\/\d+$/,
    real: { test: (v) => ['nodes/proxy', 'pods/proxy', 'services/proxy'].includes(v as string) },
    embedded: absent,
    reason: 'The embedded server does not serve the proxy subresources (it has no cluster network to proxy to).',
    upstream: 'pkg/registry/core/rest/storage_core.go',
  },
  {
    id: 'health-check-list',
    scenarios: /^health\/verbose$/,
    path: /^\/steps\/\d+\/body\/\d+$/,
    embedded: absent,
    reason: "Verbose health lists kube-apiserver's post-start hooks and checks of components the embedded server does not have (admission initializer, priority and fairness, aggregator, bootstrap controller...).",
    upstream: 'staging/src/k8s.io/apiserver/pkg/server/healthz',
  },
  {
    id: 'metrics-endpoint',
    scenarios: /^health\/version-and-root$/,
    path: /^\/steps\/1\/body\/paths\/\[=\/metrics\]$/,
    reason: 'The embedded server does not serve Prometheus /metrics.',
    upstream: 'staging/src/k8s.io/component-base/metrics/legacyregistry',
  },
  {
    id: 'yaml-error-text',
    scenarios: /^(negotiation\/yaml|apply\/field-manager-required)$/,
    path: /\/body\/message$/,
    real: { pattern: /yaml: line \d+: / },
    reason: "YAML syntax errors are reported by a different parser (the yaml package, not go-yaml's libyaml port), so their wording differs.",
    upstream: 'sigs.k8s.io/yaml (gopkg.in/yaml.v2 scanner errors)',
  },
];
