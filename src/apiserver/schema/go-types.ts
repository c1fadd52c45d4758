/**
 * The Go types of the built-in kinds the embedded server serves, as data: for every struct, its fields
 * in declaration order with their JSON name, protobuf field number, type and the flags of their Go
 * declaration. This is what decoding a request into a Go struct and encoding it back (JSON or protobuf)
 * depends on, so the embedded server can answer exactly what kube-apiserver's typed objects answer.
 *
 * Facts compiled from the struct tags of k8s.io/api release-1.32 (`<group>/<version>/types.go`) and
 * k8s.io/apimachinery `pkg/apis/meta/v1/types.go`; written in this project's own notation:
 *
 *   `json:number:type[:flags]`, space-separated, in declaration order, where
 *   - `type` is a scalar (string, int32, int64, bool, float64, bytes) or a special type with its own
 *     encoding (Quantity, IntOrString, Time, MicroTime, Duration, RawExtension, FieldsV1), or a struct
 *     `<group>/<version>.<Name>`; `[]T` is a slice, `{}T` a map with string keys;
 *   - flags: `o` the JSON tag has omitempty, `p` the Go field is a pointer, `i` the struct is inlined
 *     into its parent's JSON (its fields appear at the parent's level; protobuf keeps it nested);
 *   - `~TypeMeta` stands for the inlined kind and apiVersion; `~` as a JSON name marks an inlined struct.
 */

/** Struct name → field list (see the file comment for the notation). */
export const goTypes: Readonly<Record<string, string>> = {
  'apps/v1.ControllerRevision': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o data:2:RawExtension:o revision:3:int64',
  'apps/v1.DaemonSet': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:apps/v1.DaemonSetSpec:o status:3:apps/v1.DaemonSetStatus:o',
  'apps/v1.DaemonSetCondition': 'type:1:string status:2:string lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'apps/v1.DaemonSetSpec': `
    selector:1:meta/v1.LabelSelector:p template:2:core/v1.PodTemplateSpec updateStrategy:3:apps/v1.DaemonSetUpdateStrategy:o
    minReadySeconds:4:int32:o revisionHistoryLimit:6:int32:op
  `,
  'apps/v1.DaemonSetStatus': `
    currentNumberScheduled:1:int32 numberMisscheduled:2:int32 desiredNumberScheduled:3:int32 numberReady:4:int32
    observedGeneration:5:int64:o updatedNumberScheduled:6:int32:o numberAvailable:7:int32:o numberUnavailable:8:int32:o
    collisionCount:9:int32:op conditions:10:[]apps/v1.DaemonSetCondition:o
  `,
  'apps/v1.DaemonSetUpdateStrategy': 'type:1:string:o rollingUpdate:2:apps/v1.RollingUpdateDaemonSet:op',
  'apps/v1.Deployment': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:apps/v1.DeploymentSpec:o status:3:apps/v1.DeploymentStatus:o',
  'apps/v1.DeploymentCondition': `
    type:1:string status:2:string lastUpdateTime:6:Time:o lastTransitionTime:7:Time:o reason:4:string:o message:5:string:o
  `,
  'apps/v1.DeploymentSpec': `
    replicas:1:int32:op selector:2:meta/v1.LabelSelector:p template:3:core/v1.PodTemplateSpec strategy:4:apps/v1.DeploymentStrategy:o
    minReadySeconds:5:int32:o revisionHistoryLimit:6:int32:op paused:7:bool:o progressDeadlineSeconds:9:int32:op
  `,
  'apps/v1.DeploymentStatus': `
    observedGeneration:1:int64:o replicas:2:int32:o updatedReplicas:3:int32:o readyReplicas:7:int32:o availableReplicas:4:int32:o
    unavailableReplicas:5:int32:o conditions:6:[]apps/v1.DeploymentCondition:o collisionCount:8:int32:op
  `,
  'apps/v1.DeploymentStrategy': 'type:1:string:o rollingUpdate:2:apps/v1.RollingUpdateDeployment:op',
  'apps/v1.ReplicaSet': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:apps/v1.ReplicaSetSpec:o status:3:apps/v1.ReplicaSetStatus:o',
  'apps/v1.ReplicaSetCondition': 'type:1:string status:2:string lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'apps/v1.ReplicaSetSpec': `
    replicas:1:int32:op minReadySeconds:4:int32:o selector:2:meta/v1.LabelSelector:p template:3:core/v1.PodTemplateSpec:o
  `,
  'apps/v1.ReplicaSetStatus': `
    replicas:1:int32 fullyLabeledReplicas:2:int32:o readyReplicas:4:int32:o availableReplicas:5:int32:o observedGeneration:3:int64:o
    conditions:6:[]apps/v1.ReplicaSetCondition:o
  `,
  'apps/v1.RollingUpdateDaemonSet': 'maxUnavailable:1:IntOrString:op maxSurge:2:IntOrString:op',
  'apps/v1.RollingUpdateDeployment': 'maxUnavailable:1:IntOrString:op maxSurge:2:IntOrString:op',
  'apps/v1.RollingUpdateStatefulSetStrategy': 'partition:1:int32:op maxUnavailable:2:IntOrString:op',
  'apps/v1.StatefulSet': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:apps/v1.StatefulSetSpec:o status:3:apps/v1.StatefulSetStatus:o',
  'apps/v1.StatefulSetCondition': 'type:1:string status:2:string lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'apps/v1.StatefulSetOrdinals': 'start:1:int32',
  'apps/v1.StatefulSetPersistentVolumeClaimRetentionPolicy': 'whenDeleted:1:string:o whenScaled:2:string:o',
  'apps/v1.StatefulSetSpec': `
    replicas:1:int32:op selector:2:meta/v1.LabelSelector:p template:3:core/v1.PodTemplateSpec
    volumeClaimTemplates:4:[]core/v1.PersistentVolumeClaim:o serviceName:5:string podManagementPolicy:6:string:o
    updateStrategy:7:apps/v1.StatefulSetUpdateStrategy:o revisionHistoryLimit:8:int32:op minReadySeconds:9:int32:o
    persistentVolumeClaimRetentionPolicy:10:apps/v1.StatefulSetPersistentVolumeClaimRetentionPolicy:op
    ordinals:11:apps/v1.StatefulSetOrdinals:op
  `,
  'apps/v1.StatefulSetStatus': `
    observedGeneration:1:int64:o replicas:2:int32 readyReplicas:3:int32:o currentReplicas:4:int32:o updatedReplicas:5:int32:o
    currentRevision:6:string:o updateRevision:7:string:o collisionCount:9:int32:op conditions:10:[]apps/v1.StatefulSetCondition:o
    availableReplicas:11:int32
  `,
  'apps/v1.StatefulSetUpdateStrategy': 'type:1:string:o rollingUpdate:2:apps/v1.RollingUpdateStatefulSetStrategy:op',
  'authentication/v1.BoundObjectReference': 'kind:1:string:o apiVersion:2:string:o name:3:string:o uid:4:string:o',
  'authentication/v1.TokenRequest': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:authentication/v1.TokenRequestSpec status:3:authentication/v1.TokenRequestStatus:o
  `,
  'authentication/v1.TokenRequestSpec': `
    audiences:1:[]string expirationSeconds:4:int64:p boundObjectRef:3:authentication/v1.BoundObjectReference:p
  `,
  'authentication/v1.TokenRequestStatus': 'token:1:string expirationTimestamp:2:Time',
  'authentication/v1.TokenReview': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:authentication/v1.TokenReviewSpec status:3:authentication/v1.TokenReviewStatus:o
  `,
  'authentication/v1.TokenReviewSpec': 'token:1:string:o audiences:2:[]string:o',
  'authentication/v1.TokenReviewStatus': `
    authenticated:1:bool:o user:2:authentication/v1.UserInfo:o audiences:4:[]string:o error:3:string:o
  `,
  'authentication/v1.UserInfo': 'username:1:string:o uid:2:string:o groups:3:[]string:o extra:4:{}[]string:o',
  'authorization/v1.FieldSelectorAttributes': 'rawSelector:1:string:o requirements:2:[]meta/v1.FieldSelectorRequirement:o',
  'authorization/v1.LabelSelectorAttributes': 'rawSelector:1:string:o requirements:2:[]meta/v1.LabelSelectorRequirement:o',
  'authorization/v1.LocalSubjectAccessReview': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:authorization/v1.SubjectAccessReviewSpec
    status:3:authorization/v1.SubjectAccessReviewStatus:o
  `,
  'authorization/v1.NonResourceAttributes': 'path:1:string:o verb:2:string:o',
  'authorization/v1.NonResourceRule': 'verbs:1:[]string nonResourceURLs:2:[]string:o',
  'authorization/v1.ResourceAttributes': `
    namespace:1:string:o verb:2:string:o group:3:string:o version:4:string:o resource:5:string:o subresource:6:string:o name:7:string:o
    fieldSelector:8:authorization/v1.FieldSelectorAttributes:op labelSelector:9:authorization/v1.LabelSelectorAttributes:op
  `,
  'authorization/v1.ResourceRule': 'verbs:1:[]string apiGroups:2:[]string:o resources:3:[]string:o resourceNames:4:[]string:o',
  'authorization/v1.SelfSubjectAccessReview': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:authorization/v1.SelfSubjectAccessReviewSpec
    status:3:authorization/v1.SubjectAccessReviewStatus:o
  `,
  'authorization/v1.SelfSubjectAccessReviewSpec': `
    resourceAttributes:1:authorization/v1.ResourceAttributes:op nonResourceAttributes:2:authorization/v1.NonResourceAttributes:op
  `,
  'authorization/v1.SelfSubjectRulesReview': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:authorization/v1.SelfSubjectRulesReviewSpec
    status:3:authorization/v1.SubjectRulesReviewStatus:o
  `,
  'authorization/v1.SelfSubjectRulesReviewSpec': 'namespace:1:string:o',
  'authorization/v1.SubjectAccessReview': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:authorization/v1.SubjectAccessReviewSpec
    status:3:authorization/v1.SubjectAccessReviewStatus:o
  `,
  'authorization/v1.SubjectAccessReviewSpec': `
    resourceAttributes:1:authorization/v1.ResourceAttributes:op nonResourceAttributes:2:authorization/v1.NonResourceAttributes:op
    user:3:string:o groups:4:[]string:o extra:5:{}[]string:o uid:6:string:o
  `,
  'authorization/v1.SubjectAccessReviewStatus': 'allowed:1:bool denied:4:bool:o reason:2:string:o evaluationError:3:string:o',
  'authorization/v1.SubjectRulesReviewStatus': `
    resourceRules:1:[]authorization/v1.ResourceRule nonResourceRules:2:[]authorization/v1.NonResourceRule incomplete:3:bool
    evaluationError:4:string:o
  `,
  'autoscaling/v1.CrossVersionObjectReference': 'kind:1:string name:2:string apiVersion:3:string:o',
  'autoscaling/v1.HorizontalPodAutoscaler': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:autoscaling/v1.HorizontalPodAutoscalerSpec:o status:3:autoscaling/v1.HorizontalPodAutoscalerStatus:o
  `,
  'autoscaling/v1.HorizontalPodAutoscalerSpec': `
    scaleTargetRef:1:autoscaling/v1.CrossVersionObjectReference minReplicas:2:int32:op maxReplicas:3:int32
    targetCPUUtilizationPercentage:4:int32:op
  `,
  'autoscaling/v1.HorizontalPodAutoscalerStatus': `
    observedGeneration:1:int64:op lastScaleTime:2:Time:op currentReplicas:3:int32 desiredReplicas:4:int32
    currentCPUUtilizationPercentage:5:int32:op
  `,
  'autoscaling/v2.ContainerResourceMetricSource': 'name:1:string target:2:autoscaling/v2.MetricTarget container:3:string',
  'autoscaling/v2.ContainerResourceMetricStatus': 'name:1:string current:2:autoscaling/v2.MetricValueStatus container:3:string',
  'autoscaling/v2.CrossVersionObjectReference': 'kind:1:string name:2:string apiVersion:3:string:o',
  'autoscaling/v2.ExternalMetricSource': 'metric:1:autoscaling/v2.MetricIdentifier target:2:autoscaling/v2.MetricTarget',
  'autoscaling/v2.ExternalMetricStatus': 'metric:1:autoscaling/v2.MetricIdentifier current:2:autoscaling/v2.MetricValueStatus',
  'autoscaling/v2.HPAScalingPolicy': 'type:1:string value:2:int32 periodSeconds:3:int32',
  'autoscaling/v2.HPAScalingRules': `
    stabilizationWindowSeconds:3:int32:op selectPolicy:1:string:op policies:2:[]autoscaling/v2.HPAScalingPolicy:o
  `,
  'autoscaling/v2.HorizontalPodAutoscaler': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:autoscaling/v2.HorizontalPodAutoscalerSpec:o status:3:autoscaling/v2.HorizontalPodAutoscalerStatus:o
  `,
  'autoscaling/v2.HorizontalPodAutoscalerBehavior': 'scaleUp:1:autoscaling/v2.HPAScalingRules:op scaleDown:2:autoscaling/v2.HPAScalingRules:op',
  'autoscaling/v2.HorizontalPodAutoscalerCondition': 'type:1:string status:2:string lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'autoscaling/v2.HorizontalPodAutoscalerSpec': `
    scaleTargetRef:1:autoscaling/v2.CrossVersionObjectReference minReplicas:2:int32:op maxReplicas:3:int32
    metrics:4:[]autoscaling/v2.MetricSpec:o behavior:5:autoscaling/v2.HorizontalPodAutoscalerBehavior:op
  `,
  'autoscaling/v2.HorizontalPodAutoscalerStatus': `
    observedGeneration:1:int64:op lastScaleTime:2:Time:op currentReplicas:3:int32:o desiredReplicas:4:int32
    currentMetrics:5:[]autoscaling/v2.MetricStatus:o conditions:6:[]autoscaling/v2.HorizontalPodAutoscalerCondition:o
  `,
  'autoscaling/v2.MetricIdentifier': 'name:1:string selector:2:meta/v1.LabelSelector:op',
  'autoscaling/v2.MetricSpec': `
    type:1:string object:2:autoscaling/v2.ObjectMetricSource:op pods:3:autoscaling/v2.PodsMetricSource:op
    resource:4:autoscaling/v2.ResourceMetricSource:op containerResource:7:autoscaling/v2.ContainerResourceMetricSource:op
    external:5:autoscaling/v2.ExternalMetricSource:op
  `,
  'autoscaling/v2.MetricStatus': `
    type:1:string object:2:autoscaling/v2.ObjectMetricStatus:op pods:3:autoscaling/v2.PodsMetricStatus:op
    resource:4:autoscaling/v2.ResourceMetricStatus:op containerResource:7:autoscaling/v2.ContainerResourceMetricStatus:op
    external:5:autoscaling/v2.ExternalMetricStatus:op
  `,
  'autoscaling/v2.MetricTarget': 'type:1:string value:2:Quantity:op averageValue:3:Quantity:op averageUtilization:4:int32:op',
  'autoscaling/v2.MetricValueStatus': 'value:1:Quantity:op averageValue:2:Quantity:op averageUtilization:3:int32:op',
  'autoscaling/v2.ObjectMetricSource': 'describedObject:1:autoscaling/v2.CrossVersionObjectReference target:2:autoscaling/v2.MetricTarget metric:3:autoscaling/v2.MetricIdentifier',
  'autoscaling/v2.ObjectMetricStatus': 'metric:1:autoscaling/v2.MetricIdentifier current:2:autoscaling/v2.MetricValueStatus describedObject:3:autoscaling/v2.CrossVersionObjectReference',
  'autoscaling/v2.PodsMetricSource': 'metric:1:autoscaling/v2.MetricIdentifier target:2:autoscaling/v2.MetricTarget',
  'autoscaling/v2.PodsMetricStatus': 'metric:1:autoscaling/v2.MetricIdentifier current:2:autoscaling/v2.MetricValueStatus',
  'autoscaling/v2.ResourceMetricSource': 'name:1:string target:2:autoscaling/v2.MetricTarget',
  'autoscaling/v2.ResourceMetricStatus': 'name:1:string current:2:autoscaling/v2.MetricValueStatus',
  'autoscaling/v1.Scale': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:autoscaling/v1.ScaleSpec:o status:3:autoscaling/v1.ScaleStatus:o
  `,
  'autoscaling/v1.ScaleSpec': 'replicas:1:int32:o',
  'autoscaling/v1.ScaleStatus': 'replicas:1:int32 selector:2:string:o',
  'batch/v1.CronJob': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:batch/v1.CronJobSpec:o status:3:batch/v1.CronJobStatus:o',
  'batch/v1.CronJobSpec': `
    schedule:1:string timeZone:8:string:op startingDeadlineSeconds:2:int64:op concurrencyPolicy:3:string:o suspend:4:bool:op
    jobTemplate:5:batch/v1.JobTemplateSpec successfulJobsHistoryLimit:6:int32:op failedJobsHistoryLimit:7:int32:op
  `,
  'batch/v1.CronJobStatus': 'active:1:[]core/v1.ObjectReference:o lastScheduleTime:4:Time:op lastSuccessfulTime:5:Time:op',
  'batch/v1.Job': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:batch/v1.JobSpec:o status:3:batch/v1.JobStatus:o',
  'batch/v1.JobCondition': `
    type:1:string status:2:string lastProbeTime:3:Time:o lastTransitionTime:4:Time:o reason:5:string:o message:6:string:o
  `,
  'batch/v1.JobSpec': `
    parallelism:1:int32:op completions:2:int32:op activeDeadlineSeconds:3:int64:op podFailurePolicy:11:batch/v1.PodFailurePolicy:op
    successPolicy:16:batch/v1.SuccessPolicy:op backoffLimit:7:int32:op backoffLimitPerIndex:12:int32:op maxFailedIndexes:13:int32:op
    selector:4:meta/v1.LabelSelector:op manualSelector:5:bool:op template:6:core/v1.PodTemplateSpec ttlSecondsAfterFinished:8:int32:op
    completionMode:9:string:op suspend:10:bool:op podReplacementPolicy:14:string:op managedBy:15:string:op
  `,
  'batch/v1.JobStatus': `
    conditions:1:[]batch/v1.JobCondition:o startTime:2:Time:op completionTime:3:Time:op active:4:int32:o succeeded:5:int32:o
    failed:6:int32:o terminating:11:int32:op completedIndexes:7:string:o failedIndexes:10:string:op
    uncountedTerminatedPods:8:batch/v1.UncountedTerminatedPods:op ready:9:int32:op
  `,
  'batch/v1.JobTemplateSpec': 'metadata:1:meta/v1.ObjectMeta:o spec:2:batch/v1.JobSpec:o',
  'batch/v1.PodFailurePolicy': 'rules:1:[]batch/v1.PodFailurePolicyRule',
  'batch/v1.PodFailurePolicyOnExitCodesRequirement': 'containerName:1:string:op operator:2:string values:3:[]int32',
  'batch/v1.PodFailurePolicyOnPodConditionsPattern': 'type:1:string status:2:string',
  'batch/v1.PodFailurePolicyRule': `
    action:1:string onExitCodes:2:batch/v1.PodFailurePolicyOnExitCodesRequirement:op
    onPodConditions:3:[]batch/v1.PodFailurePolicyOnPodConditionsPattern:o
  `,
  'batch/v1.SuccessPolicy': 'rules:1:[]batch/v1.SuccessPolicyRule',
  'batch/v1.SuccessPolicyRule': 'succeededIndexes:1:string:op succeededCount:2:int32:op',
  'batch/v1.UncountedTerminatedPods': 'succeeded:1:[]string:o failed:2:[]string:o',
  'certificates/v1.CertificateSigningRequest': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:certificates/v1.CertificateSigningRequestSpec
    status:3:certificates/v1.CertificateSigningRequestStatus:o
  `,
  'certificates/v1.CertificateSigningRequestCondition': `
    type:1:string status:6:string reason:2:string:o message:3:string:o lastUpdateTime:4:Time:o lastTransitionTime:5:Time:o
  `,
  'certificates/v1.CertificateSigningRequestSpec': `
    request:1:bytes signerName:7:string expirationSeconds:8:int32:op usages:5:[]string:o username:2:string:o uid:3:string:o
    groups:4:[]string:o extra:6:{}[]string:o
  `,
  'certificates/v1.CertificateSigningRequestStatus': 'conditions:1:[]certificates/v1.CertificateSigningRequestCondition:o certificate:2:bytes:o',
  'coordination/v1.Lease': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:coordination/v1.LeaseSpec:o',
  'coordination/v1.LeaseSpec': `
    holderIdentity:1:string:op leaseDurationSeconds:2:int32:op acquireTime:3:MicroTime:op renewTime:4:MicroTime:op
    leaseTransitions:5:int32:op strategy:6:string:op preferredHolder:7:string:op
  `,
  'core/v1.AWSElasticBlockStoreVolumeSource': 'volumeID:1:string fsType:2:string:o partition:3:int32:o readOnly:4:bool:o',
  'core/v1.Affinity': `
    nodeAffinity:1:core/v1.NodeAffinity:op podAffinity:2:core/v1.PodAffinity:op podAntiAffinity:3:core/v1.PodAntiAffinity:op
  `,
  'core/v1.AppArmorProfile': 'type:1:string localhostProfile:2:string:op',
  'core/v1.AttachedVolume': 'name:1:string devicePath:2:string',
  'core/v1.AzureDiskVolumeSource': `
    diskName:1:string diskURI:2:string cachingMode:3:string:op fsType:4:string:op readOnly:5:bool:op kind:6:string:op
  `,
  'core/v1.AzureFilePersistentVolumeSource': 'secretName:1:string shareName:2:string readOnly:3:bool:o secretNamespace:4:string:p',
  'core/v1.AzureFileVolumeSource': 'secretName:1:string shareName:2:string readOnly:3:bool:o',
  'core/v1.Binding': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o target:2:core/v1.ObjectReference',
  'core/v1.CSIPersistentVolumeSource': `
    driver:1:string volumeHandle:2:string readOnly:3:bool:o fsType:4:string:o volumeAttributes:5:{}string:o
    controllerPublishSecretRef:6:core/v1.SecretReference:op nodeStageSecretRef:7:core/v1.SecretReference:op
    nodePublishSecretRef:8:core/v1.SecretReference:op controllerExpandSecretRef:9:core/v1.SecretReference:op
    nodeExpandSecretRef:10:core/v1.SecretReference:op
  `,
  'core/v1.CSIVolumeSource': `
    driver:1:string readOnly:2:bool:op fsType:3:string:op volumeAttributes:4:{}string:o
    nodePublishSecretRef:5:core/v1.LocalObjectReference:op
  `,
  'core/v1.Capabilities': 'add:1:[]string:o drop:2:[]string:o',
  'core/v1.CephFSPersistentVolumeSource': `
    monitors:1:[]string path:2:string:o user:3:string:o secretFile:4:string:o secretRef:5:core/v1.SecretReference:op readOnly:6:bool:o
  `,
  'core/v1.CephFSVolumeSource': `
    monitors:1:[]string path:2:string:o user:3:string:o secretFile:4:string:o secretRef:5:core/v1.LocalObjectReference:op
    readOnly:6:bool:o
  `,
  'core/v1.CinderPersistentVolumeSource': 'volumeID:1:string fsType:2:string:o readOnly:3:bool:o secretRef:4:core/v1.SecretReference:op',
  'core/v1.CinderVolumeSource': 'volumeID:1:string fsType:2:string:o readOnly:3:bool:o secretRef:4:core/v1.LocalObjectReference:op',
  'core/v1.ClientIPConfig': 'timeoutSeconds:1:int32:op',
  'core/v1.ClusterTrustBundleProjection': `
    name:1:string:op signerName:2:string:op labelSelector:3:meta/v1.LabelSelector:op optional:5:bool:op path:4:string
  `,
  'core/v1.ConfigMap': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o immutable:4:bool:op data:2:{}string:o binaryData:3:{}bytes:o',
  'core/v1.ConfigMapEnvSource': '~:1:core/v1.LocalObjectReference:i optional:2:bool:op',
  'core/v1.ConfigMapKeySelector': '~:1:core/v1.LocalObjectReference:i key:2:string optional:3:bool:op',
  'core/v1.ConfigMapNodeConfigSource': `
    namespace:1:string name:2:string uid:3:string:o resourceVersion:4:string:o kubeletConfigKey:5:string
  `,
  'core/v1.ConfigMapProjection': '~:1:core/v1.LocalObjectReference:i items:2:[]core/v1.KeyToPath:o optional:4:bool:op',
  'core/v1.ConfigMapVolumeSource': `
    ~:1:core/v1.LocalObjectReference:i items:2:[]core/v1.KeyToPath:o defaultMode:3:int32:op optional:4:bool:op
  `,
  'core/v1.Container': `
    name:1:string image:2:string:o command:3:[]string:o args:4:[]string:o workingDir:5:string:o ports:6:[]core/v1.ContainerPort:o
    envFrom:19:[]core/v1.EnvFromSource:o env:7:[]core/v1.EnvVar:o resources:8:core/v1.ResourceRequirements:o
    resizePolicy:23:[]core/v1.ContainerResizePolicy:o restartPolicy:24:string:op volumeMounts:9:[]core/v1.VolumeMount:o
    volumeDevices:21:[]core/v1.VolumeDevice:o livenessProbe:10:core/v1.Probe:op readinessProbe:11:core/v1.Probe:op
    startupProbe:22:core/v1.Probe:op lifecycle:12:core/v1.Lifecycle:op terminationMessagePath:13:string:o
    terminationMessagePolicy:20:string:o imagePullPolicy:14:string:o securityContext:15:core/v1.SecurityContext:op stdin:16:bool:o
    stdinOnce:17:bool:o tty:18:bool:o
  `,
  'core/v1.ContainerImage': 'names:1:[]string sizeBytes:2:int64:o',
  'core/v1.ContainerPort': 'name:1:string:o hostPort:2:int32:o containerPort:3:int32 protocol:4:string:o hostIP:5:string:o',
  'core/v1.ContainerResizePolicy': 'resourceName:1:string restartPolicy:2:string',
  'core/v1.ContainerState': `
    waiting:1:core/v1.ContainerStateWaiting:op running:2:core/v1.ContainerStateRunning:op
    terminated:3:core/v1.ContainerStateTerminated:op
  `,
  'core/v1.ContainerStateRunning': 'startedAt:1:Time:o',
  'core/v1.ContainerStateTerminated': `
    exitCode:1:int32 signal:2:int32:o reason:3:string:o message:4:string:o startedAt:5:Time:o finishedAt:6:Time:o containerID:7:string:o
  `,
  'core/v1.ContainerStateWaiting': 'reason:1:string:o message:2:string:o',
  'core/v1.ContainerStatus': `
    name:1:string state:2:core/v1.ContainerState:o lastState:3:core/v1.ContainerState:o ready:4:bool restartCount:5:int32 image:6:string
    imageID:7:string containerID:8:string:o started:9:bool:op allocatedResources:10:{}Quantity:o
    resources:11:core/v1.ResourceRequirements:op volumeMounts:12:[]core/v1.VolumeMountStatus:o user:13:core/v1.ContainerUser:op
    allocatedResourcesStatus:14:[]core/v1.ResourceStatus:o
  `,
  'core/v1.ContainerUser': 'linux:1:core/v1.LinuxContainerUser:op',
  'core/v1.DaemonEndpoint': 'Port:1:int32',
  'core/v1.DownwardAPIProjection': 'items:1:[]core/v1.DownwardAPIVolumeFile:o',
  'core/v1.DownwardAPIVolumeFile': `
    path:1:string fieldRef:2:core/v1.ObjectFieldSelector:op resourceFieldRef:3:core/v1.ResourceFieldSelector:op mode:4:int32:op
  `,
  'core/v1.DownwardAPIVolumeSource': 'items:1:[]core/v1.DownwardAPIVolumeFile:o defaultMode:2:int32:op',
  'core/v1.EmptyDirVolumeSource': 'medium:1:string:o sizeLimit:2:Quantity:op',
  'core/v1.EndpointAddress': 'ip:1:string hostname:3:string:o nodeName:4:string:op targetRef:2:core/v1.ObjectReference:op',
  'core/v1.EndpointPort': 'name:1:string:o port:2:int32 protocol:3:string:o appProtocol:4:string:op',
  'core/v1.EndpointSubset': `
    addresses:1:[]core/v1.EndpointAddress:o notReadyAddresses:2:[]core/v1.EndpointAddress:o ports:3:[]core/v1.EndpointPort:o
  `,
  'core/v1.Endpoints': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o subsets:2:[]core/v1.EndpointSubset:o',
  'core/v1.EnvFromSource': 'prefix:1:string:o configMapRef:2:core/v1.ConfigMapEnvSource:op secretRef:3:core/v1.SecretEnvSource:op',
  'core/v1.EnvVar': 'name:1:string value:2:string:o valueFrom:3:core/v1.EnvVarSource:op',
  'core/v1.EnvVarSource': `
    fieldRef:1:core/v1.ObjectFieldSelector:op resourceFieldRef:2:core/v1.ResourceFieldSelector:op
    configMapKeyRef:3:core/v1.ConfigMapKeySelector:op secretKeyRef:4:core/v1.SecretKeySelector:op
  `,
  'core/v1.EphemeralContainer': '~:1:core/v1.EphemeralContainerCommon:i targetContainerName:2:string:o',
  'core/v1.EphemeralContainerCommon': `
    name:1:string image:2:string:o command:3:[]string:o args:4:[]string:o workingDir:5:string:o ports:6:[]core/v1.ContainerPort:o
    envFrom:19:[]core/v1.EnvFromSource:o env:7:[]core/v1.EnvVar:o resources:8:core/v1.ResourceRequirements:o
    resizePolicy:23:[]core/v1.ContainerResizePolicy:o restartPolicy:24:string:op volumeMounts:9:[]core/v1.VolumeMount:o
    volumeDevices:21:[]core/v1.VolumeDevice:o livenessProbe:10:core/v1.Probe:op readinessProbe:11:core/v1.Probe:op
    startupProbe:22:core/v1.Probe:op lifecycle:12:core/v1.Lifecycle:op terminationMessagePath:13:string:o
    terminationMessagePolicy:20:string:o imagePullPolicy:14:string:o securityContext:15:core/v1.SecurityContext:op stdin:16:bool:o
    stdinOnce:17:bool:o tty:18:bool:o
  `,
  'core/v1.EphemeralVolumeSource': 'volumeClaimTemplate:1:core/v1.PersistentVolumeClaimTemplate:op',
  'core/v1.Event': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta involvedObject:2:core/v1.ObjectReference reason:3:string:o message:4:string:o
    source:5:core/v1.EventSource:o firstTimestamp:6:Time:o lastTimestamp:7:Time:o count:8:int32:o type:9:string:o
    eventTime:10:MicroTime:o series:11:core/v1.EventSeries:op action:12:string:o related:13:core/v1.ObjectReference:op
    reportingComponent:14:string reportingInstance:15:string
  `,
  'core/v1.EventSeries': 'count:1:int32:o lastObservedTime:2:MicroTime:o',
  'core/v1.EventSource': 'component:1:string:o host:2:string:o',
  'core/v1.ExecAction': 'command:1:[]string:o',
  'core/v1.FCVolumeSource': 'targetWWNs:1:[]string:o lun:2:int32:op fsType:3:string:o readOnly:4:bool:o wwids:5:[]string:o',
  'core/v1.FlexPersistentVolumeSource': `
    driver:1:string fsType:2:string:o secretRef:3:core/v1.SecretReference:op readOnly:4:bool:o options:5:{}string:o
  `,
  'core/v1.FlexVolumeSource': `
    driver:1:string fsType:2:string:o secretRef:3:core/v1.LocalObjectReference:op readOnly:4:bool:o options:5:{}string:o
  `,
  'core/v1.FlockerVolumeSource': 'datasetName:1:string:o datasetUUID:2:string:o',
  'core/v1.GCEPersistentDiskVolumeSource': 'pdName:1:string fsType:2:string:o partition:3:int32:o readOnly:4:bool:o',
  'core/v1.GRPCAction': 'port:1:int32 service:2:string:p',
  'core/v1.GitRepoVolumeSource': 'repository:1:string revision:2:string:o directory:3:string:o',
  'core/v1.GlusterfsPersistentVolumeSource': 'endpoints:1:string path:2:string readOnly:3:bool:o endpointsNamespace:4:string:op',
  'core/v1.GlusterfsVolumeSource': 'endpoints:1:string path:2:string readOnly:3:bool:o',
  'core/v1.HTTPGetAction': 'path:1:string:o port:2:IntOrString host:3:string:o scheme:4:string:o httpHeaders:5:[]core/v1.HTTPHeader:o',
  'core/v1.HTTPHeader': 'name:1:string value:2:string',
  'core/v1.HostAlias': 'ip:1:string hostnames:2:[]string:o',
  'core/v1.HostIP': 'ip:1:string',
  'core/v1.HostPathVolumeSource': 'path:1:string type:2:string:op',
  'core/v1.ISCSIPersistentVolumeSource': `
    targetPortal:1:string iqn:2:string lun:3:int32 iscsiInterface:4:string:o fsType:5:string:o readOnly:6:bool:o portals:7:[]string:o
    chapAuthDiscovery:8:bool:o chapAuthSession:11:bool:o secretRef:10:core/v1.SecretReference:op initiatorName:12:string:op
  `,
  'core/v1.ISCSIVolumeSource': `
    targetPortal:1:string iqn:2:string lun:3:int32 iscsiInterface:4:string:o fsType:5:string:o readOnly:6:bool:o portals:7:[]string:o
    chapAuthDiscovery:8:bool:o chapAuthSession:11:bool:o secretRef:10:core/v1.LocalObjectReference:op initiatorName:12:string:op
  `,
  'core/v1.ImageVolumeSource': 'reference:1:string:o pullPolicy:2:string:o',
  'core/v1.KeyToPath': 'key:1:string path:2:string mode:3:int32:op',
  'core/v1.Lifecycle': 'postStart:1:core/v1.LifecycleHandler:op preStop:2:core/v1.LifecycleHandler:op',
  'core/v1.LifecycleHandler': `
    exec:1:core/v1.ExecAction:op httpGet:2:core/v1.HTTPGetAction:op tcpSocket:3:core/v1.TCPSocketAction:op
    sleep:4:core/v1.SleepAction:op
  `,
  'core/v1.LimitRange': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.LimitRangeSpec:o',
  'core/v1.LimitRangeItem': `
    type:1:string max:2:{}Quantity:o min:3:{}Quantity:o default:4:{}Quantity:o defaultRequest:5:{}Quantity:o
    maxLimitRequestRatio:6:{}Quantity:o
  `,
  'core/v1.LimitRangeSpec': 'limits:1:[]core/v1.LimitRangeItem',
  'core/v1.LinuxContainerUser': 'uid:1:int64 gid:2:int64 supplementalGroups:3:[]int64:o',
  'core/v1.LoadBalancerIngress': 'ip:1:string:o hostname:2:string:o ipMode:3:string:op ports:4:[]core/v1.PortStatus:o',
  'core/v1.LoadBalancerStatus': 'ingress:1:[]core/v1.LoadBalancerIngress:o',
  'core/v1.LocalObjectReference': 'name:1:string:o',
  'core/v1.LocalVolumeSource': 'path:1:string fsType:2:string:op',
  'core/v1.ModifyVolumeStatus': 'targetVolumeAttributesClassName:1:string:o status:2:string',
  'core/v1.NFSVolumeSource': 'server:1:string path:2:string readOnly:3:bool:o',
  'core/v1.Namespace': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.NamespaceSpec:o status:3:core/v1.NamespaceStatus:o',
  'core/v1.NamespaceCondition': 'type:1:string status:2:string lastTransitionTime:4:Time:o reason:5:string:o message:6:string:o',
  'core/v1.NamespaceSpec': 'finalizers:1:[]string:o',
  'core/v1.NamespaceStatus': 'phase:1:string:o conditions:2:[]core/v1.NamespaceCondition:o',
  'core/v1.Node': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.NodeSpec:o status:3:core/v1.NodeStatus:o',
  'core/v1.NodeAddress': 'type:1:string address:2:string',
  'core/v1.NodeAffinity': `
    requiredDuringSchedulingIgnoredDuringExecution:1:core/v1.NodeSelector:op
    preferredDuringSchedulingIgnoredDuringExecution:2:[]core/v1.PreferredSchedulingTerm:o
  `,
  'core/v1.NodeCondition': `
    type:1:string status:2:string lastHeartbeatTime:3:Time:o lastTransitionTime:4:Time:o reason:5:string:o message:6:string:o
  `,
  'core/v1.NodeConfigSource': 'configMap:2:core/v1.ConfigMapNodeConfigSource:op',
  'core/v1.NodeConfigStatus': `
    assigned:1:core/v1.NodeConfigSource:op active:2:core/v1.NodeConfigSource:op lastKnownGood:3:core/v1.NodeConfigSource:op
    error:4:string:o
  `,
  'core/v1.NodeDaemonEndpoints': 'kubeletEndpoint:1:core/v1.DaemonEndpoint:o',
  'core/v1.NodeFeatures': 'supplementalGroupsPolicy:1:bool:op',
  'core/v1.NodeRuntimeHandler': 'name:1:string features:2:core/v1.NodeRuntimeHandlerFeatures:op',
  'core/v1.NodeRuntimeHandlerFeatures': 'recursiveReadOnlyMounts:1:bool:op userNamespaces:2:bool:op',
  'core/v1.NodeSelector': 'nodeSelectorTerms:1:[]core/v1.NodeSelectorTerm',
  'core/v1.NodeSelectorRequirement': 'key:1:string operator:2:string values:3:[]string:o',
  'core/v1.NodeSelectorTerm': 'matchExpressions:1:[]core/v1.NodeSelectorRequirement:o matchFields:2:[]core/v1.NodeSelectorRequirement:o',
  'core/v1.NodeSpec': `
    podCIDR:1:string:o podCIDRs:7:[]string:o providerID:3:string:o unschedulable:4:bool:o taints:5:[]core/v1.Taint:o
    configSource:6:core/v1.NodeConfigSource:op externalID:2:string:o
  `,
  'core/v1.NodeStatus': `
    capacity:1:{}Quantity:o allocatable:2:{}Quantity:o phase:3:string:o conditions:4:[]core/v1.NodeCondition:o
    addresses:5:[]core/v1.NodeAddress:o daemonEndpoints:6:core/v1.NodeDaemonEndpoints:o nodeInfo:7:core/v1.NodeSystemInfo:o
    images:8:[]core/v1.ContainerImage:o volumesInUse:9:[]string:o volumesAttached:10:[]core/v1.AttachedVolume:o
    config:11:core/v1.NodeConfigStatus:op runtimeHandlers:12:[]core/v1.NodeRuntimeHandler:o features:13:core/v1.NodeFeatures:op
  `,
  'core/v1.NodeSystemInfo': `
    machineID:1:string systemUUID:2:string bootID:3:string kernelVersion:4:string osImage:5:string containerRuntimeVersion:6:string
    kubeletVersion:7:string kubeProxyVersion:8:string operatingSystem:9:string architecture:10:string
  `,
  'core/v1.ObjectFieldSelector': 'apiVersion:1:string:o fieldPath:2:string',
  'core/v1.ObjectReference': `
    kind:1:string:o namespace:2:string:o name:3:string:o uid:4:string:o apiVersion:5:string:o resourceVersion:6:string:o
    fieldPath:7:string:o
  `,
  'core/v1.PersistentVolume': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.PersistentVolumeSpec:o status:3:core/v1.PersistentVolumeStatus:o
  `,
  'core/v1.PersistentVolumeClaim': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.PersistentVolumeClaimSpec:o status:3:core/v1.PersistentVolumeClaimStatus:o
  `,
  'core/v1.PersistentVolumeClaimCondition': `
    type:1:string status:2:string lastProbeTime:3:Time:o lastTransitionTime:4:Time:o reason:5:string:o message:6:string:o
  `,
  'core/v1.PersistentVolumeClaimSpec': `
    accessModes:1:[]string:o selector:4:meta/v1.LabelSelector:op resources:2:core/v1.VolumeResourceRequirements:o volumeName:3:string:o
    storageClassName:5:string:op volumeMode:6:string:op dataSource:7:core/v1.TypedLocalObjectReference:op
    dataSourceRef:8:core/v1.TypedObjectReference:op volumeAttributesClassName:9:string:op
  `,
  'core/v1.PersistentVolumeClaimStatus': `
    phase:1:string:o accessModes:2:[]string:o capacity:3:{}Quantity:o conditions:4:[]core/v1.PersistentVolumeClaimCondition:o
    allocatedResources:5:{}Quantity:o allocatedResourceStatuses:7:{}string:o currentVolumeAttributesClassName:8:string:op
    modifyVolumeStatus:9:core/v1.ModifyVolumeStatus:op
  `,
  'core/v1.PersistentVolumeClaimTemplate': 'metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.PersistentVolumeClaimSpec',
  'core/v1.PersistentVolumeClaimVolumeSource': 'claimName:1:string readOnly:2:bool:o',
  'core/v1.PersistentVolumeSource': `
    gcePersistentDisk:1:core/v1.GCEPersistentDiskVolumeSource:op awsElasticBlockStore:2:core/v1.AWSElasticBlockStoreVolumeSource:op
    hostPath:3:core/v1.HostPathVolumeSource:op glusterfs:4:core/v1.GlusterfsPersistentVolumeSource:op nfs:5:core/v1.NFSVolumeSource:op
    rbd:6:core/v1.RBDPersistentVolumeSource:op iscsi:7:core/v1.ISCSIPersistentVolumeSource:op
    cinder:8:core/v1.CinderPersistentVolumeSource:op cephfs:9:core/v1.CephFSPersistentVolumeSource:op fc:10:core/v1.FCVolumeSource:op
    flocker:11:core/v1.FlockerVolumeSource:op flexVolume:12:core/v1.FlexPersistentVolumeSource:op
    azureFile:13:core/v1.AzureFilePersistentVolumeSource:op vsphereVolume:14:core/v1.VsphereVirtualDiskVolumeSource:op
    quobyte:15:core/v1.QuobyteVolumeSource:op azureDisk:16:core/v1.AzureDiskVolumeSource:op
    photonPersistentDisk:17:core/v1.PhotonPersistentDiskVolumeSource:op portworxVolume:18:core/v1.PortworxVolumeSource:op
    scaleIO:19:core/v1.ScaleIOPersistentVolumeSource:op local:20:core/v1.LocalVolumeSource:op
    storageos:21:core/v1.StorageOSPersistentVolumeSource:op csi:22:core/v1.CSIPersistentVolumeSource:op
  `,
  'core/v1.PersistentVolumeSpec': `
    capacity:1:{}Quantity:o ~:2:core/v1.PersistentVolumeSource:i accessModes:3:[]string:o claimRef:4:core/v1.ObjectReference:op
    persistentVolumeReclaimPolicy:5:string:o storageClassName:6:string:o mountOptions:7:[]string:o volumeMode:8:string:op
    nodeAffinity:9:core/v1.VolumeNodeAffinity:op volumeAttributesClassName:10:string:op
  `,
  'core/v1.PersistentVolumeStatus': 'phase:1:string:o message:2:string:o reason:3:string:o lastPhaseTransitionTime:4:Time:op',
  'core/v1.PhotonPersistentDiskVolumeSource': 'pdID:1:string fsType:2:string:o',
  'core/v1.Pod': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.PodSpec:o status:3:core/v1.PodStatus:o',
  'core/v1.PodAffinity': `
    requiredDuringSchedulingIgnoredDuringExecution:1:[]core/v1.PodAffinityTerm:o
    preferredDuringSchedulingIgnoredDuringExecution:2:[]core/v1.WeightedPodAffinityTerm:o
  `,
  'core/v1.PodAffinityTerm': `
    labelSelector:1:meta/v1.LabelSelector:op namespaces:2:[]string:o topologyKey:3:string namespaceSelector:4:meta/v1.LabelSelector:op
    matchLabelKeys:5:[]string:o mismatchLabelKeys:6:[]string:o
  `,
  'core/v1.PodAntiAffinity': `
    requiredDuringSchedulingIgnoredDuringExecution:1:[]core/v1.PodAffinityTerm:o
    preferredDuringSchedulingIgnoredDuringExecution:2:[]core/v1.WeightedPodAffinityTerm:o
  `,
  'core/v1.PodCondition': `
    type:1:string status:2:string lastProbeTime:3:Time:o lastTransitionTime:4:Time:o reason:5:string:o message:6:string:o
  `,
  'core/v1.PodDNSConfig': 'nameservers:1:[]string:o searches:2:[]string:o options:3:[]core/v1.PodDNSConfigOption:o',
  'core/v1.PodDNSConfigOption': 'name:1:string:o value:2:string:op',
  'core/v1.PodIP': 'ip:1:string',
  'core/v1.PodOS': 'name:1:string',
  'core/v1.PodReadinessGate': 'conditionType:1:string',
  'core/v1.PodResourceClaim': 'name:1:string resourceClaimName:3:string:op resourceClaimTemplateName:4:string:op',
  'core/v1.PodResourceClaimStatus': 'name:1:string resourceClaimName:2:string:op',
  'core/v1.PodSchedulingGate': 'name:1:string',
  'core/v1.PodSecurityContext': `
    seLinuxOptions:1:core/v1.SELinuxOptions:op windowsOptions:8:core/v1.WindowsSecurityContextOptions:op runAsUser:2:int64:op
    runAsGroup:6:int64:op runAsNonRoot:3:bool:op supplementalGroups:4:[]int64:o supplementalGroupsPolicy:12:string:op fsGroup:5:int64:op
    sysctls:7:[]core/v1.Sysctl:o fsGroupChangePolicy:9:string:op seccompProfile:10:core/v1.SeccompProfile:op
    appArmorProfile:11:core/v1.AppArmorProfile:op seLinuxChangePolicy:13:string:op
  `,
  'core/v1.PodSpec': `
    volumes:1:[]core/v1.Volume:o initContainers:20:[]core/v1.Container:o containers:2:[]core/v1.Container
    ephemeralContainers:34:[]core/v1.EphemeralContainer:o restartPolicy:3:string:o terminationGracePeriodSeconds:4:int64:op
    activeDeadlineSeconds:5:int64:op dnsPolicy:6:string:o nodeSelector:7:{}string:o serviceAccountName:8:string:o
    serviceAccount:9:string:o automountServiceAccountToken:21:bool:op nodeName:10:string:o hostNetwork:11:bool:o hostPID:12:bool:o
    hostIPC:13:bool:o shareProcessNamespace:27:bool:op securityContext:14:core/v1.PodSecurityContext:op
    imagePullSecrets:15:[]core/v1.LocalObjectReference:o hostname:16:string:o subdomain:17:string:o affinity:18:core/v1.Affinity:op
    schedulerName:19:string:o tolerations:22:[]core/v1.Toleration:o hostAliases:23:[]core/v1.HostAlias:o priorityClassName:24:string:o
    priority:25:int32:op dnsConfig:26:core/v1.PodDNSConfig:op readinessGates:28:[]core/v1.PodReadinessGate:o
    runtimeClassName:29:string:op enableServiceLinks:30:bool:op preemptionPolicy:31:string:op overhead:32:{}Quantity:o
    topologySpreadConstraints:33:[]core/v1.TopologySpreadConstraint:o setHostnameAsFQDN:35:bool:op os:36:core/v1.PodOS:op
    hostUsers:37:bool:op schedulingGates:38:[]core/v1.PodSchedulingGate:o resourceClaims:39:[]core/v1.PodResourceClaim:o
    resources:40:core/v1.ResourceRequirements:op
  `,
  'core/v1.PodStatus': `
    phase:1:string:o conditions:2:[]core/v1.PodCondition:o message:3:string:o reason:4:string:o nominatedNodeName:11:string:o
    hostIP:5:string:o hostIPs:16:[]core/v1.HostIP:o podIP:6:string:o podIPs:12:[]core/v1.PodIP:o startTime:7:Time:op
    initContainerStatuses:10:[]core/v1.ContainerStatus:o containerStatuses:8:[]core/v1.ContainerStatus:o qosClass:9:string:o
    ephemeralContainerStatuses:13:[]core/v1.ContainerStatus:o resize:14:string:o
    resourceClaimStatuses:15:[]core/v1.PodResourceClaimStatus:o
  `,
  'core/v1.PodTemplate': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o template:2:core/v1.PodTemplateSpec:o',
  'core/v1.PodTemplateSpec': 'metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.PodSpec:o',
  'core/v1.PortStatus': 'port:1:int32 protocol:2:string error:3:string:op',
  'core/v1.PortworxVolumeSource': 'volumeID:1:string fsType:2:string:o readOnly:3:bool:o',
  'core/v1.PreferredSchedulingTerm': 'weight:1:int32 preference:2:core/v1.NodeSelectorTerm',
  'core/v1.Probe': `
    ~:1:core/v1.ProbeHandler:i initialDelaySeconds:2:int32:o timeoutSeconds:3:int32:o periodSeconds:4:int32:o successThreshold:5:int32:o
    failureThreshold:6:int32:o terminationGracePeriodSeconds:7:int64:op
  `,
  'core/v1.ProbeHandler': `
    exec:1:core/v1.ExecAction:op httpGet:2:core/v1.HTTPGetAction:op tcpSocket:3:core/v1.TCPSocketAction:op grpc:4:core/v1.GRPCAction:op
  `,
  'core/v1.ProjectedVolumeSource': 'sources:1:[]core/v1.VolumeProjection defaultMode:2:int32:op',
  'core/v1.QuobyteVolumeSource': 'registry:1:string volume:2:string readOnly:3:bool:o user:4:string:o group:5:string:o tenant:6:string:o',
  'core/v1.RBDPersistentVolumeSource': `
    monitors:1:[]string image:2:string fsType:3:string:o pool:4:string:o user:5:string:o keyring:6:string:o
    secretRef:7:core/v1.SecretReference:op readOnly:8:bool:o
  `,
  'core/v1.RBDVolumeSource': `
    monitors:1:[]string image:2:string fsType:3:string:o pool:4:string:o user:5:string:o keyring:6:string:o
    secretRef:7:core/v1.LocalObjectReference:op readOnly:8:bool:o
  `,
  'core/v1.ReplicationController': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.ReplicationControllerSpec:o status:3:core/v1.ReplicationControllerStatus:o
  `,
  'core/v1.ReplicationControllerCondition': `
    type:1:string status:2:string lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o
  `,
  'core/v1.ReplicationControllerSpec': `
    replicas:1:int32:op minReadySeconds:4:int32:o selector:2:{}string:o template:3:core/v1.PodTemplateSpec:op
  `,
  'core/v1.ReplicationControllerStatus': `
    replicas:1:int32 fullyLabeledReplicas:2:int32:o readyReplicas:4:int32:o availableReplicas:5:int32:o observedGeneration:3:int64:o
    conditions:6:[]core/v1.ReplicationControllerCondition:o
  `,
  'core/v1.ResourceClaim': 'name:1:string request:2:string:o',
  'core/v1.ResourceFieldSelector': 'containerName:1:string:o resource:2:string divisor:3:Quantity:o',
  'core/v1.ResourceHealth': 'resourceID:1:string health:2:string:o',
  'core/v1.ResourceQuota': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.ResourceQuotaSpec:o status:3:core/v1.ResourceQuotaStatus:o
  `,
  'core/v1.ResourceQuotaSpec': 'hard:1:{}Quantity:o scopes:2:[]string:o scopeSelector:3:core/v1.ScopeSelector:op',
  'core/v1.ResourceQuotaStatus': 'hard:1:{}Quantity:o used:2:{}Quantity:o',
  'core/v1.ResourceRequirements': 'limits:1:{}Quantity:o requests:2:{}Quantity:o claims:3:[]core/v1.ResourceClaim:o',
  'core/v1.ResourceStatus': 'name:1:string resources:2:[]core/v1.ResourceHealth:o',
  'core/v1.SELinuxOptions': 'user:1:string:o role:2:string:o type:3:string:o level:4:string:o',
  'core/v1.ScaleIOPersistentVolumeSource': `
    gateway:1:string system:2:string secretRef:3:core/v1.SecretReference:p sslEnabled:4:bool:o protectionDomain:5:string:o
    storagePool:6:string:o storageMode:7:string:o volumeName:8:string:o fsType:9:string:o readOnly:10:bool:o
  `,
  'core/v1.ScaleIOVolumeSource': `
    gateway:1:string system:2:string secretRef:3:core/v1.LocalObjectReference:p sslEnabled:4:bool:o protectionDomain:5:string:o
    storagePool:6:string:o storageMode:7:string:o volumeName:8:string:o fsType:9:string:o readOnly:10:bool:o
  `,
  'core/v1.ScopeSelector': 'matchExpressions:1:[]core/v1.ScopedResourceSelectorRequirement:o',
  'core/v1.ScopedResourceSelectorRequirement': 'scopeName:1:string operator:2:string values:3:[]string:o',
  'core/v1.SeccompProfile': 'type:1:string localhostProfile:2:string:op',
  'core/v1.Secret': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o immutable:5:bool:op data:2:{}bytes:o stringData:4:{}string:o type:3:string:o
  `,
  'core/v1.SecretEnvSource': '~:1:core/v1.LocalObjectReference:i optional:2:bool:op',
  'core/v1.SecretKeySelector': '~:1:core/v1.LocalObjectReference:i key:2:string optional:3:bool:op',
  'core/v1.SecretProjection': '~:1:core/v1.LocalObjectReference:i items:2:[]core/v1.KeyToPath:o optional:4:bool:op',
  'core/v1.SecretReference': 'name:1:string:o namespace:2:string:o',
  'core/v1.SecretVolumeSource': 'secretName:1:string:o items:2:[]core/v1.KeyToPath:o defaultMode:3:int32:op optional:4:bool:op',
  'core/v1.SecurityContext': `
    capabilities:1:core/v1.Capabilities:op privileged:2:bool:op seLinuxOptions:3:core/v1.SELinuxOptions:op
    windowsOptions:10:core/v1.WindowsSecurityContextOptions:op runAsUser:4:int64:op runAsGroup:8:int64:op runAsNonRoot:5:bool:op
    readOnlyRootFilesystem:6:bool:op allowPrivilegeEscalation:7:bool:op procMount:9:string:op
    seccompProfile:11:core/v1.SeccompProfile:op appArmorProfile:12:core/v1.AppArmorProfile:op
  `,
  'core/v1.Service': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:core/v1.ServiceSpec:o status:3:core/v1.ServiceStatus:o',
  'core/v1.ServiceAccount': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o secrets:2:[]core/v1.ObjectReference:o imagePullSecrets:3:[]core/v1.LocalObjectReference:o
    automountServiceAccountToken:4:bool:op
  `,
  'core/v1.ServiceAccountTokenProjection': 'audience:1:string:o expirationSeconds:2:int64:op path:3:string',
  'core/v1.ServicePort': `
    name:1:string:o protocol:2:string:o appProtocol:6:string:op port:3:int32 targetPort:4:IntOrString:o nodePort:5:int32:o
  `,
  'core/v1.ServiceSpec': `
    ports:1:[]core/v1.ServicePort:o selector:2:{}string:o clusterIP:3:string:o clusterIPs:18:[]string:o type:4:string:o
    externalIPs:5:[]string:o sessionAffinity:7:string:o loadBalancerIP:8:string:o loadBalancerSourceRanges:9:[]string:o
    externalName:10:string:o externalTrafficPolicy:11:string:o healthCheckNodePort:12:int32:o publishNotReadyAddresses:13:bool:o
    sessionAffinityConfig:14:core/v1.SessionAffinityConfig:op ipFamilies:19:[]string:o ipFamilyPolicy:17:string:op
    allocateLoadBalancerNodePorts:20:bool:op loadBalancerClass:21:string:op internalTrafficPolicy:22:string:op
    trafficDistribution:23:string:op
  `,
  'core/v1.ServiceStatus': 'loadBalancer:1:core/v1.LoadBalancerStatus:o conditions:2:[]meta/v1.Condition:o',
  'core/v1.SessionAffinityConfig': 'clientIP:1:core/v1.ClientIPConfig:op',
  'core/v1.SleepAction': 'seconds:1:int64',
  'core/v1.StorageOSPersistentVolumeSource': `
    volumeName:1:string:o volumeNamespace:2:string:o fsType:3:string:o readOnly:4:bool:o secretRef:5:core/v1.ObjectReference:op
  `,
  'core/v1.StorageOSVolumeSource': `
    volumeName:1:string:o volumeNamespace:2:string:o fsType:3:string:o readOnly:4:bool:o secretRef:5:core/v1.LocalObjectReference:op
  `,
  'core/v1.Sysctl': 'name:1:string value:2:string',
  'core/v1.TCPSocketAction': 'port:1:IntOrString host:2:string:o',
  'core/v1.Taint': 'key:1:string value:2:string:o effect:3:string timeAdded:4:Time:op',
  'core/v1.Toleration': 'key:1:string:o operator:2:string:o value:3:string:o effect:4:string:o tolerationSeconds:5:int64:op',
  'core/v1.TopologySpreadConstraint': `
    maxSkew:1:int32 topologyKey:2:string whenUnsatisfiable:3:string labelSelector:4:meta/v1.LabelSelector:op minDomains:5:int32:op
    nodeAffinityPolicy:6:string:op nodeTaintsPolicy:7:string:op matchLabelKeys:8:[]string:o
  `,
  'core/v1.TypedLocalObjectReference': 'apiGroup:1:string:p kind:2:string name:3:string',
  'core/v1.TypedObjectReference': 'apiGroup:1:string:p kind:2:string name:3:string namespace:4:string:op',
  'core/v1.Volume': 'name:1:string ~:2:core/v1.VolumeSource:i',
  'core/v1.VolumeDevice': 'name:1:string devicePath:2:string',
  'core/v1.VolumeMount': `
    name:1:string readOnly:2:bool:o recursiveReadOnly:7:string:op mountPath:3:string subPath:4:string:o mountPropagation:5:string:op
    subPathExpr:6:string:o
  `,
  'core/v1.VolumeMountStatus': 'name:1:string mountPath:2:string readOnly:3:bool:o recursiveReadOnly:4:string:op',
  'core/v1.VolumeNodeAffinity': 'required:1:core/v1.NodeSelector:op',
  'core/v1.VolumeProjection': `
    secret:1:core/v1.SecretProjection:op downwardAPI:2:core/v1.DownwardAPIProjection:op configMap:3:core/v1.ConfigMapProjection:op
    serviceAccountToken:4:core/v1.ServiceAccountTokenProjection:op clusterTrustBundle:5:core/v1.ClusterTrustBundleProjection:op
  `,
  'core/v1.VolumeResourceRequirements': 'limits:1:{}Quantity:o requests:2:{}Quantity:o',
  'core/v1.VolumeSource': `
    hostPath:1:core/v1.HostPathVolumeSource:op emptyDir:2:core/v1.EmptyDirVolumeSource:op
    gcePersistentDisk:3:core/v1.GCEPersistentDiskVolumeSource:op awsElasticBlockStore:4:core/v1.AWSElasticBlockStoreVolumeSource:op
    gitRepo:5:core/v1.GitRepoVolumeSource:op secret:6:core/v1.SecretVolumeSource:op nfs:7:core/v1.NFSVolumeSource:op
    iscsi:8:core/v1.ISCSIVolumeSource:op glusterfs:9:core/v1.GlusterfsVolumeSource:op
    persistentVolumeClaim:10:core/v1.PersistentVolumeClaimVolumeSource:op rbd:11:core/v1.RBDVolumeSource:op
    flexVolume:12:core/v1.FlexVolumeSource:op cinder:13:core/v1.CinderVolumeSource:op cephfs:14:core/v1.CephFSVolumeSource:op
    flocker:15:core/v1.FlockerVolumeSource:op downwardAPI:16:core/v1.DownwardAPIVolumeSource:op fc:17:core/v1.FCVolumeSource:op
    azureFile:18:core/v1.AzureFileVolumeSource:op configMap:19:core/v1.ConfigMapVolumeSource:op
    vsphereVolume:20:core/v1.VsphereVirtualDiskVolumeSource:op quobyte:21:core/v1.QuobyteVolumeSource:op
    azureDisk:22:core/v1.AzureDiskVolumeSource:op photonPersistentDisk:23:core/v1.PhotonPersistentDiskVolumeSource:op
    projected:26:core/v1.ProjectedVolumeSource:op portworxVolume:24:core/v1.PortworxVolumeSource:op
    scaleIO:25:core/v1.ScaleIOVolumeSource:op storageos:27:core/v1.StorageOSVolumeSource:op csi:28:core/v1.CSIVolumeSource:op
    ephemeral:29:core/v1.EphemeralVolumeSource:op image:30:core/v1.ImageVolumeSource:op
  `,
  'core/v1.VsphereVirtualDiskVolumeSource': 'volumePath:1:string fsType:2:string:o storagePolicyName:3:string:o storagePolicyID:4:string:o',
  'core/v1.WeightedPodAffinityTerm': 'weight:1:int32 podAffinityTerm:2:core/v1.PodAffinityTerm',
  'core/v1.WindowsSecurityContextOptions': `
    gmsaCredentialSpecName:1:string:op gmsaCredentialSpec:2:string:op runAsUserName:3:string:op hostProcess:4:bool:op
  `,
  'events/v1.Event': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta eventTime:2:MicroTime series:3:events/v1.EventSeries:op reportingController:4:string:o
    reportingInstance:5:string:o action:6:string:o reason:7:string:o regarding:8:core/v1.ObjectReference:o
    related:9:core/v1.ObjectReference:op note:10:string:o type:11:string:o deprecatedSource:12:core/v1.EventSource:o
    deprecatedFirstTimestamp:13:Time:o deprecatedLastTimestamp:14:Time:o deprecatedCount:15:int32:o
  `,
  'events/v1.EventSeries': 'count:1:int32 lastObservedTime:2:MicroTime',
  'meta/v1.APIGroup': `
    ~TypeMeta name:1:string versions:2:[]meta/v1.GroupVersionForDiscovery preferredVersion:3:meta/v1.GroupVersionForDiscovery:o
    serverAddressByClientCIDRs:4:[]meta/v1.ServerAddressByClientCIDR:o
  `,
  'meta/v1.APIGroupList': '~TypeMeta groups:1:[]meta/v1.APIGroup',
  'meta/v1.APIResource': `
    name:1:string singularName:6:string namespaced:2:bool group:8:string:o version:9:string:o kind:3:string verbs:4:[]string
    shortNames:5:[]string:o categories:7:[]string:o storageVersionHash:10:string:o
  `,
  'meta/v1.APIResourceList': '~TypeMeta groupVersion:1:string resources:2:[]meta/v1.APIResource',
  'meta/v1.APIVersions': '~TypeMeta versions:1:[]string serverAddressByClientCIDRs:2:[]meta/v1.ServerAddressByClientCIDR',
  'meta/v1.Condition': `
    type:1:string status:2:string observedGeneration:3:int64:o lastTransitionTime:4:Time reason:5:string message:6:string
  `,
  'meta/v1.DeleteOptions': `
    ~TypeMeta gracePeriodSeconds:1:int64:op preconditions:2:meta/v1.Preconditions:op orphanDependents:3:bool:op
    propagationPolicy:4:string:op dryRun:5:[]string:o
  `,
  'meta/v1.FieldSelectorRequirement': 'key:1:string operator:2:string values:3:[]string:o',
  'meta/v1.GroupVersionForDiscovery': 'groupVersion:1:string version:2:string',
  'meta/v1.LabelSelector': 'matchLabels:1:{}string:o matchExpressions:2:[]meta/v1.LabelSelectorRequirement:o',
  'meta/v1.LabelSelectorRequirement': 'key:1:string operator:2:string values:3:[]string:o',
  'meta/v1.ListMeta': 'selfLink:1:string:o resourceVersion:2:string:o continue:3:string:o remainingItemCount:4:int64:op',
  'meta/v1.ManagedFieldsEntry': `
    manager:1:string:o operation:2:string:o apiVersion:3:string:o time:4:Time:op fieldsType:6:string:o fieldsV1:7:FieldsV1:op
    subresource:8:string:o
  `,
  'meta/v1.ObjectMeta': `
    name:1:string:o generateName:2:string:o namespace:3:string:o selfLink:4:string:o uid:5:string:o resourceVersion:6:string:o
    generation:7:int64:o creationTimestamp:8:Time:o deletionTimestamp:9:Time:op deletionGracePeriodSeconds:10:int64:op
    labels:11:{}string:o annotations:12:{}string:o ownerReferences:13:[]meta/v1.OwnerReference:o finalizers:14:[]string:o
    managedFields:17:[]meta/v1.ManagedFieldsEntry:o
  `,
  'meta/v1.OwnerReference': `
    apiVersion:5:string kind:1:string name:3:string uid:4:string controller:6:bool:op blockOwnerDeletion:7:bool:op
  `,
  'meta/v1.PartialObjectMetadata': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o',
  'meta/v1.PartialObjectMetadataList': '~TypeMeta metadata:1:meta/v1.ListMeta:o items:2:[]meta/v1.PartialObjectMetadata',
  'meta/v1.Preconditions': 'uid:1:string:op resourceVersion:2:string:op',
  'meta/v1.ServerAddressByClientCIDR': 'clientCIDR:1:string serverAddress:2:string',
  'meta/v1.Status': `
    ~TypeMeta metadata:1:meta/v1.ListMeta:o status:2:string:o message:3:string:o reason:4:string:o details:5:meta/v1.StatusDetails:op
    code:6:int32:o
  `,
  'meta/v1.StatusCause': 'reason:1:string:o message:2:string:o field:3:string:o',
  'meta/v1.StatusDetails': `
    name:1:string:o group:2:string:o kind:3:string:o uid:6:string:o causes:4:[]meta/v1.StatusCause:o retryAfterSeconds:5:int32:o
  `,
  'networking/v1.HTTPIngressPath': 'path:1:string:o pathType:3:string:p backend:2:networking/v1.IngressBackend',
  'networking/v1.HTTPIngressRuleValue': 'paths:1:[]networking/v1.HTTPIngressPath',
  'networking/v1.IPBlock': 'cidr:1:string except:2:[]string:o',
  'networking/v1.Ingress': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:networking/v1.IngressSpec:o status:3:networking/v1.IngressStatus:o
  `,
  'networking/v1.IngressBackend': 'service:4:networking/v1.IngressServiceBackend:op resource:3:core/v1.TypedLocalObjectReference:op',
  'networking/v1.IngressClass': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:networking/v1.IngressClassSpec:o',
  'networking/v1.IngressClassParametersReference': `
    apiGroup:1:string:op kind:2:string name:3:string scope:4:string:p namespace:5:string:op
  `,
  'networking/v1.IngressClassSpec': 'controller:1:string:o parameters:2:networking/v1.IngressClassParametersReference:op',
  'networking/v1.IngressLoadBalancerIngress': 'ip:1:string:o hostname:2:string:o ports:4:[]networking/v1.IngressPortStatus:o',
  'networking/v1.IngressLoadBalancerStatus': 'ingress:1:[]networking/v1.IngressLoadBalancerIngress:o',
  'networking/v1.IngressPortStatus': 'port:1:int32 protocol:2:string error:3:string:op',
  'networking/v1.IngressRule': 'host:1:string:o ~:2:networking/v1.IngressRuleValue:i',
  'networking/v1.IngressRuleValue': 'http:1:networking/v1.HTTPIngressRuleValue:op',
  'networking/v1.IngressServiceBackend': 'name:1:string port:2:networking/v1.ServiceBackendPort:o',
  'networking/v1.IngressSpec': `
    ingressClassName:4:string:op defaultBackend:1:networking/v1.IngressBackend:op tls:2:[]networking/v1.IngressTLS:o
    rules:3:[]networking/v1.IngressRule:o
  `,
  'networking/v1.IngressStatus': 'loadBalancer:1:networking/v1.IngressLoadBalancerStatus:o',
  'networking/v1.IngressTLS': 'hosts:1:[]string:o secretName:2:string:o',
  'networking/v1.NetworkPolicy': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:networking/v1.NetworkPolicySpec:o',
  'networking/v1.NetworkPolicyEgressRule': 'ports:1:[]networking/v1.NetworkPolicyPort:o to:2:[]networking/v1.NetworkPolicyPeer:o',
  'networking/v1.NetworkPolicyIngressRule': 'ports:1:[]networking/v1.NetworkPolicyPort:o from:2:[]networking/v1.NetworkPolicyPeer:o',
  'networking/v1.NetworkPolicyPeer': `
    podSelector:1:meta/v1.LabelSelector:op namespaceSelector:2:meta/v1.LabelSelector:op ipBlock:3:networking/v1.IPBlock:op
  `,
  'networking/v1.NetworkPolicyPort': 'protocol:1:string:op port:2:IntOrString:op endPort:3:int32:op',
  'networking/v1.NetworkPolicySpec': `
    podSelector:1:meta/v1.LabelSelector ingress:2:[]networking/v1.NetworkPolicyIngressRule:o
    egress:3:[]networking/v1.NetworkPolicyEgressRule:o policyTypes:4:[]string:o
  `,
  'networking/v1.ServiceBackendPort': 'name:1:string:o number:2:int32:o',
  'policy/v1.Eviction': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o deleteOptions:2:meta/v1.DeleteOptions:op',
  'policy/v1.PodDisruptionBudget': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:policy/v1.PodDisruptionBudgetSpec:o status:3:policy/v1.PodDisruptionBudgetStatus:o
  `,
  'policy/v1.PodDisruptionBudgetSpec': `
    minAvailable:1:IntOrString:op selector:2:meta/v1.LabelSelector:op maxUnavailable:3:IntOrString:op
    unhealthyPodEvictionPolicy:4:string:op
  `,
  'policy/v1.PodDisruptionBudgetStatus': `
    observedGeneration:1:int64:o disruptedPods:2:{}Time:o disruptionsAllowed:3:int32 currentHealthy:4:int32 desiredHealthy:5:int32
    expectedPods:6:int32 conditions:7:[]meta/v1.Condition:o
  `,
  'rbac/v1.AggregationRule': 'clusterRoleSelectors:1:[]meta/v1.LabelSelector:o',
  'rbac/v1.ClusterRole': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o rules:2:[]rbac/v1.PolicyRule aggregationRule:3:rbac/v1.AggregationRule:op
  `,
  'rbac/v1.ClusterRoleBinding': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o subjects:2:[]rbac/v1.Subject:o roleRef:3:rbac/v1.RoleRef',
  'rbac/v1.PolicyRule': `
    verbs:1:[]string apiGroups:2:[]string:o resources:3:[]string:o resourceNames:4:[]string:o nonResourceURLs:5:[]string:o
  `,
  'rbac/v1.Role': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o rules:2:[]rbac/v1.PolicyRule',
  'rbac/v1.RoleBinding': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o subjects:2:[]rbac/v1.Subject:o roleRef:3:rbac/v1.RoleRef',
  'rbac/v1.RoleRef': 'apiGroup:1:string kind:2:string name:3:string',
  'rbac/v1.Subject': 'kind:1:string apiGroup:2:string:o name:3:string namespace:4:string:o',
  'scheduling/v1.PriorityClass': `
    ~TypeMeta metadata:1:meta/v1.ObjectMeta:o value:2:int32 globalDefault:3:bool:o description:4:string:o preemptionPolicy:5:string:op
  `,
  // The kinds served since the whole built-in API is (storage, discovery, node, flowcontrol, admission
  // policies, ComponentStatus, SelfSubjectReview; APIService from k8s.io/kube-aggregator's apiregistration/v1).
  'admissionregistration/v1.AuditAnnotation': 'key:1:string valueExpression:2:string',
  'admissionregistration/v1.ExpressionWarning': 'fieldRef:2:string warning:3:string',
  'admissionregistration/v1.MatchCondition': 'name:1:string expression:2:string',
  'admissionregistration/v1.MatchResources': 'namespaceSelector:1:meta/v1.LabelSelector:op objectSelector:2:meta/v1.LabelSelector:op resourceRules:3:[]admissionregistration/v1.NamedRuleWithOperations:o excludeResourceRules:4:[]admissionregistration/v1.NamedRuleWithOperations:o matchPolicy:7:string:op',
  'admissionregistration/v1.NamedRuleWithOperations': 'resourceNames:1:[]string:o ~:2:admissionregistration/v1.RuleWithOperations:i',
  'admissionregistration/v1.ParamKind': 'apiVersion:1:string:o kind:2:string:o',
  'admissionregistration/v1.ParamRef': 'name:1:string:o namespace:2:string:o selector:3:meta/v1.LabelSelector:op parameterNotFoundAction:4:string:op',
  'admissionregistration/v1.Rule': 'apiGroups:1:[]string:o apiVersions:2:[]string:o resources:3:[]string:o scope:4:string:op',
  'admissionregistration/v1.RuleWithOperations': 'operations:1:[]string:o ~:2:admissionregistration/v1.Rule:i',
  'admissionregistration/v1.TypeChecking': 'expressionWarnings:1:[]admissionregistration/v1.ExpressionWarning:o',
  'admissionregistration/v1.ValidatingAdmissionPolicy': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:admissionregistration/v1.ValidatingAdmissionPolicySpec:o status:3:admissionregistration/v1.ValidatingAdmissionPolicyStatus:o',
  'admissionregistration/v1.ValidatingAdmissionPolicyBinding': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:admissionregistration/v1.ValidatingAdmissionPolicyBindingSpec:o',
  'admissionregistration/v1.ValidatingAdmissionPolicyBindingSpec': 'policyName:1:string:o paramRef:2:admissionregistration/v1.ParamRef:op matchResources:3:admissionregistration/v1.MatchResources:op validationActions:4:[]string:o',
  'admissionregistration/v1.ValidatingAdmissionPolicySpec': 'paramKind:1:admissionregistration/v1.ParamKind:op matchConstraints:2:admissionregistration/v1.MatchResources:op validations:3:[]admissionregistration/v1.Validation:o failurePolicy:4:string:op auditAnnotations:5:[]admissionregistration/v1.AuditAnnotation:o matchConditions:6:[]admissionregistration/v1.MatchCondition:o variables:7:[]admissionregistration/v1.Variable:o',
  'admissionregistration/v1.ValidatingAdmissionPolicyStatus': 'observedGeneration:1:int64:o typeChecking:2:admissionregistration/v1.TypeChecking:op conditions:3:[]meta/v1.Condition:o',
  'admissionregistration/v1.Validation': 'expression:1:string message:2:string:o reason:3:string:op messageExpression:4:string:o',
  'admissionregistration/v1.Variable': 'name:1:string expression:2:string',
  'apiregistration/v1.APIService': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:apiregistration/v1.APIServiceSpec:o status:3:apiregistration/v1.APIServiceStatus:o',
  'apiregistration/v1.APIServiceCondition': 'type:1:string status:2:string lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'apiregistration/v1.APIServiceSpec': 'service:1:apiregistration/v1.ServiceReference:op group:2:string:o version:3:string:o insecureSkipTLSVerify:4:bool:o caBundle:5:bytes:o groupPriorityMinimum:7:int32 versionPriority:8:int32',
  'apiregistration/v1.APIServiceStatus': 'conditions:1:[]apiregistration/v1.APIServiceCondition:o',
  'apiregistration/v1.ServiceReference': 'namespace:1:string:o name:2:string:o port:3:int32:op',
  'authentication/v1.SelfSubjectReview': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o status:2:authentication/v1.SelfSubjectReviewStatus:o',
  'authentication/v1.SelfSubjectReviewStatus': 'userInfo:1:authentication/v1.UserInfo:o',
  'core/v1.ComponentCondition': 'type:1:string status:2:string message:3:string:o error:4:string:o',
  'core/v1.ComponentStatus': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o conditions:2:[]core/v1.ComponentCondition:o',
  'core/v1.TopologySelectorLabelRequirement': 'key:1:string values:2:[]string',
  'core/v1.TopologySelectorTerm': 'matchLabelExpressions:1:[]core/v1.TopologySelectorLabelRequirement:o',
  'discovery/v1.Endpoint': 'addresses:1:[]string conditions:2:discovery/v1.EndpointConditions:o hostname:3:string:op targetRef:4:core/v1.ObjectReference:op deprecatedTopology:5:{}string:o nodeName:6:string:op zone:7:string:op hints:8:discovery/v1.EndpointHints:op',
  'discovery/v1.EndpointConditions': 'ready:1:bool:op serving:2:bool:op terminating:3:bool:op',
  'discovery/v1.EndpointHints': 'forZones:1:[]discovery/v1.ForZone:o',
  'discovery/v1.EndpointPort': 'name:1:string:op protocol:2:string:op port:3:int32:op appProtocol:4:string:op',
  'discovery/v1.EndpointSlice': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o addressType:4:string endpoints:2:[]discovery/v1.Endpoint ports:3:[]discovery/v1.EndpointPort',
  'discovery/v1.ForZone': 'name:1:string',
  'flowcontrol/v1.ExemptPriorityLevelConfiguration': 'nominalConcurrencyShares:1:int32:op lendablePercent:2:int32:op',
  'flowcontrol/v1.FlowDistinguisherMethod': 'type:1:string',
  'flowcontrol/v1.FlowSchema': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:flowcontrol/v1.FlowSchemaSpec:o status:3:flowcontrol/v1.FlowSchemaStatus:o',
  'flowcontrol/v1.FlowSchemaCondition': 'type:1:string:o status:2:string:o lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'flowcontrol/v1.FlowSchemaSpec': 'priorityLevelConfiguration:1:flowcontrol/v1.PriorityLevelConfigurationReference matchingPrecedence:2:int32 distinguisherMethod:3:flowcontrol/v1.FlowDistinguisherMethod:op rules:4:[]flowcontrol/v1.PolicyRulesWithSubjects:o',
  'flowcontrol/v1.FlowSchemaStatus': 'conditions:1:[]flowcontrol/v1.FlowSchemaCondition:o',
  'flowcontrol/v1.GroupSubject': 'name:1:string',
  'flowcontrol/v1.LimitResponse': 'type:1:string queuing:2:flowcontrol/v1.QueuingConfiguration:op',
  'flowcontrol/v1.LimitedPriorityLevelConfiguration': 'nominalConcurrencyShares:1:int32:p limitResponse:2:flowcontrol/v1.LimitResponse:o lendablePercent:3:int32:op borrowingLimitPercent:4:int32:op',
  'flowcontrol/v1.NonResourcePolicyRule': 'verbs:1:[]string nonResourceURLs:6:[]string',
  'flowcontrol/v1.PolicyRulesWithSubjects': 'subjects:1:[]flowcontrol/v1.Subject resourceRules:2:[]flowcontrol/v1.ResourcePolicyRule:o nonResourceRules:3:[]flowcontrol/v1.NonResourcePolicyRule:o',
  'flowcontrol/v1.PriorityLevelConfiguration': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:flowcontrol/v1.PriorityLevelConfigurationSpec:o status:3:flowcontrol/v1.PriorityLevelConfigurationStatus:o',
  'flowcontrol/v1.PriorityLevelConfigurationCondition': 'type:1:string:o status:2:string:o lastTransitionTime:3:Time:o reason:4:string:o message:5:string:o',
  'flowcontrol/v1.PriorityLevelConfigurationReference': 'name:1:string',
  'flowcontrol/v1.PriorityLevelConfigurationSpec': 'type:1:string limited:2:flowcontrol/v1.LimitedPriorityLevelConfiguration:op exempt:3:flowcontrol/v1.ExemptPriorityLevelConfiguration:op',
  'flowcontrol/v1.PriorityLevelConfigurationStatus': 'conditions:1:[]flowcontrol/v1.PriorityLevelConfigurationCondition:o',
  'flowcontrol/v1.QueuingConfiguration': 'queues:1:int32 handSize:2:int32 queueLengthLimit:3:int32',
  'flowcontrol/v1.ResourcePolicyRule': 'verbs:1:[]string apiGroups:2:[]string resources:3:[]string clusterScope:4:bool:o namespaces:5:[]string',
  'flowcontrol/v1.ServiceAccountSubject': 'namespace:1:string name:2:string',
  'flowcontrol/v1.Subject': 'kind:1:string user:2:flowcontrol/v1.UserSubject:op group:3:flowcontrol/v1.GroupSubject:op serviceAccount:4:flowcontrol/v1.ServiceAccountSubject:op',
  'flowcontrol/v1.UserSubject': 'name:1:string',
  'node/v1.Overhead': 'podFixed:1:{}Quantity:o',
  'node/v1.RuntimeClass': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o handler:2:string overhead:3:node/v1.Overhead:op scheduling:4:node/v1.Scheduling:op',
  'node/v1.Scheduling': 'nodeSelector:1:{}string:o tolerations:2:[]core/v1.Toleration:o',
  'storage/v1.CSIDriver': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:storage/v1.CSIDriverSpec',
  'storage/v1.CSIDriverSpec': 'attachRequired:1:bool:op podInfoOnMount:2:bool:op volumeLifecycleModes:3:[]string:o storageCapacity:4:bool:op fsGroupPolicy:5:string:op tokenRequests:6:[]storage/v1.TokenRequest:o requiresRepublish:7:bool:op seLinuxMount:8:bool:op',
  'storage/v1.CSINode': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:storage/v1.CSINodeSpec',
  'storage/v1.CSINodeDriver': 'name:1:string nodeID:2:string topologyKeys:3:[]string allocatable:4:storage/v1.VolumeNodeResources:op',
  'storage/v1.CSINodeSpec': 'drivers:1:[]storage/v1.CSINodeDriver',
  'storage/v1.CSIStorageCapacity': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o nodeTopology:2:meta/v1.LabelSelector:op storageClassName:3:string capacity:4:Quantity:op maximumVolumeSize:5:Quantity:op',
  'storage/v1.StorageClass': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o provisioner:2:string parameters:3:{}string:o reclaimPolicy:4:string:op mountOptions:5:[]string:o allowVolumeExpansion:6:bool:op volumeBindingMode:7:string:op allowedTopologies:8:[]core/v1.TopologySelectorTerm:o',
  'storage/v1.TokenRequest': 'audience:1:string expirationSeconds:2:int64:op',
  'storage/v1.VolumeAttachment': '~TypeMeta metadata:1:meta/v1.ObjectMeta:o spec:2:storage/v1.VolumeAttachmentSpec status:3:storage/v1.VolumeAttachmentStatus:o',
  'storage/v1.VolumeAttachmentSource': 'persistentVolumeName:1:string:op inlineVolumeSpec:2:core/v1.PersistentVolumeSpec:op',
  'storage/v1.VolumeAttachmentSpec': 'attacher:1:string source:2:storage/v1.VolumeAttachmentSource nodeName:3:string',
  'storage/v1.VolumeAttachmentStatus': 'attached:1:bool attachmentMetadata:2:{}string:o attachError:3:storage/v1.VolumeError:op detachError:4:storage/v1.VolumeError:op',
  'storage/v1.VolumeError': 'time:1:Time:o message:2:string:o',
  'storage/v1.VolumeNodeResources': 'count:1:int32:op',
};
