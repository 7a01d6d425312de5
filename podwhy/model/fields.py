"""The JSON fields the API server knows of each kind podwhy reads from manifests that make pods:
what its strict decoding (`fieldValidation=Strict`, `kubectl apply`'s default) accepts, every
other key being an "unknown field" (k8s.io/api core/v1, apps/v1, batch/v1 and meta/v1 types.go,
written out by hand).

A struct is a table of its fields; a field holds a value read whole (a string, number or list of
them, or a map with free keys: labels, annotations, resource lists, nodeSelector), a struct
(`"Container"`) or a list of structs (`"[Container]"`). Upstream's inlined structs (TypeMeta,
LocalObjectReference in the ConfigMap and Secret sources, ProbeHandler in Probe,
EphemeralContainerCommon) are merged into the struct that inlines them. A field added after
v1.33 carries the minor release it appeared in, one removed the last release it was in; the
emulated release decides (an emulated v1.33 API server does not know a v1.34 field). A kind's
`status` is read whole: the API server ignores it on create.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import msgspec


class Field(msgspec.Struct, frozen=True):
    """One JSON field: the struct it holds ("" for a value read whole, "[T]" for a list of T)
    and the minor releases it is in (since 0: every release podwhy emulates; until 0: still)."""

    holds: str = ""
    since: int = 0
    until: int = 0

    def known_in(self, minor: int) -> bool:
        return self.since <= minor and (self.until == 0 or minor <= self.until)

    @property
    def item(self) -> str:
        """The struct of each item of a list of structs ("" when not a list of structs)."""
        return self.holds[1:-1] if self.holds.startswith("[") else ""


WHOLE = Field()


def _since(minor: int, holds: str = "") -> Field:
    return Field(holds, since=minor)


def _struct(scalars: str = "", *inlined: Mapping[str, Field], **nested: str | Field) -> dict[str, Field]:
    """A struct: SCALARS (names separated by spaces) read whole, the fields of INLINED structs,
    and NESTED fields by the struct they hold (or a Field)."""
    fields: dict[str, Field] = {}
    for inline in inlined:
        fields.update(inline)
    fields.update(dict.fromkeys(scalars.split(), WHOLE))
    fields.update({name: how if isinstance(how, Field) else Field(how) for name, how in nested.items()})
    return fields


_S: dict[str, dict[str, Field]] = {}

# ------------------------------------------------------------------ meta/v1
_TYPE_META = _struct("apiVersion kind")
_S["OwnerReference"] = _struct("apiVersion kind name uid controller blockOwnerDeletion")
_S["ManagedFieldsEntry"] = _struct("manager operation apiVersion time fieldsType fieldsV1 subresource")
_S["ObjectMeta"] = _struct(
    "name generateName namespace selfLink uid resourceVersion generation creationTimestamp deletionTimestamp"
    " deletionGracePeriodSeconds labels annotations finalizers",
    ownerReferences="[OwnerReference]",
    managedFields="[ManagedFieldsEntry]",
)
_S["LabelSelectorRequirement"] = _struct("key operator values")
_S["LabelSelector"] = _struct("matchLabels", matchExpressions="[LabelSelectorRequirement]")

# ------------------------------------------------------------------ core/v1: references, selectors
_LOCAL_REF = _struct("name")
_S["LocalObjectReference"] = _LOCAL_REF
_S["TypedLocalObjectReference"] = _struct("apiGroup kind name")
_S["TypedObjectReference"] = _struct("apiGroup kind name namespace")
_S["KeyToPath"] = _struct("key path mode")
_S["ObjectFieldSelector"] = _struct("apiVersion fieldPath")
_S["ResourceFieldSelector"] = _struct("containerName resource divisor")
_S["ConfigMapKeySelector"] = _struct("key optional", _LOCAL_REF)
_S["SecretKeySelector"] = _struct("key optional", _LOCAL_REF)
_S["FileKeySelector"] = _struct("volumeName path key optional")
_S["NodeSelectorRequirement"] = _struct("key operator values")
_S["NodeSelectorTerm"] = _struct(matchExpressions="[NodeSelectorRequirement]", matchFields="[NodeSelectorRequirement]")
_S["NodeSelector"] = _struct(nodeSelectorTerms="[NodeSelectorTerm]")

# ------------------------------------------------------------------ core/v1: volumes
_S["HostPathVolumeSource"] = _struct("path type")
_S["EmptyDirVolumeSource"] = _struct("medium sizeLimit")
_S["GCEPersistentDiskVolumeSource"] = _struct("pdName fsType partition readOnly")
_S["AWSElasticBlockStoreVolumeSource"] = _struct("volumeID fsType partition readOnly")
_S["GitRepoVolumeSource"] = _struct("repository revision directory")
_S["SecretVolumeSource"] = _struct("secretName defaultMode optional", items="[KeyToPath]")
_S["NFSVolumeSource"] = _struct("server path readOnly")
_S["ISCSIVolumeSource"] = _struct(
    "targetPortal iqn lun iscsiInterface fsType readOnly portals chapAuthDiscovery chapAuthSession initiatorName",
    secretRef="LocalObjectReference",
)
_S["GlusterfsVolumeSource"] = _struct("endpoints path readOnly")
_S["PersistentVolumeClaimVolumeSource"] = _struct("claimName readOnly")
_S["RBDVolumeSource"] = _struct("monitors image fsType pool user keyring readOnly", secretRef="LocalObjectReference")
_S["FlexVolumeSource"] = _struct("driver fsType readOnly options", secretRef="LocalObjectReference")
_S["CinderVolumeSource"] = _struct("volumeID fsType readOnly", secretRef="LocalObjectReference")
_S["CephFSVolumeSource"] = _struct("monitors path user secretFile readOnly", secretRef="LocalObjectReference")
_S["FlockerVolumeSource"] = _struct("datasetName datasetUUID")
_S["DownwardAPIVolumeFile"] = _struct(
    "path mode", fieldRef="ObjectFieldSelector", resourceFieldRef="ResourceFieldSelector"
)
_S["DownwardAPIVolumeSource"] = _struct("defaultMode", items="[DownwardAPIVolumeFile]")
_S["FCVolumeSource"] = _struct("targetWWNs lun fsType readOnly wwids")
_S["AzureFileVolumeSource"] = _struct("secretName shareName readOnly")
_S["ConfigMapVolumeSource"] = _struct("defaultMode optional", _LOCAL_REF, items="[KeyToPath]")
_S["VsphereVirtualDiskVolumeSource"] = _struct("volumePath fsType storagePolicyName storagePolicyID")
_S["QuobyteVolumeSource"] = _struct("registry volume readOnly user group tenant")
_S["AzureDiskVolumeSource"] = _struct("diskName diskURI cachingMode fsType readOnly kind")
_S["PhotonPersistentDiskVolumeSource"] = _struct("pdID fsType")
_S["SecretProjection"] = _struct("optional", _LOCAL_REF, items="[KeyToPath]")
_S["DownwardAPIProjection"] = _struct(items="[DownwardAPIVolumeFile]")
_S["ConfigMapProjection"] = _struct("optional", _LOCAL_REF, items="[KeyToPath]")
_S["ServiceAccountTokenProjection"] = _struct("audience expirationSeconds path")
_S["ClusterTrustBundleProjection"] = _struct("name signerName optional path", labelSelector="LabelSelector")
_S["PodCertificateProjection"] = _struct(
    "signerName keyType maxExpirationSeconds credentialBundlePath keyPath certificateChainPath",
    userAnnotations=_since(35),
)
_S["VolumeProjection"] = _struct(
    secret="SecretProjection",
    downwardAPI="DownwardAPIProjection",
    configMap="ConfigMapProjection",
    serviceAccountToken="ServiceAccountTokenProjection",
    clusterTrustBundle="ClusterTrustBundleProjection",
    podCertificate=_since(34, "PodCertificateProjection"),
)
_S["ProjectedVolumeSource"] = _struct("defaultMode", sources="[VolumeProjection]")
_S["PortworxVolumeSource"] = _struct("volumeID fsType readOnly")
_S["ScaleIOVolumeSource"] = _struct(
    "gateway system sslEnabled protectionDomain storagePool storageMode volumeName fsType readOnly",
    secretRef="LocalObjectReference",
)
_S["StorageOSVolumeSource"] = _struct("volumeName volumeNamespace fsType readOnly", secretRef="LocalObjectReference")
_S["CSIVolumeSource"] = _struct("driver readOnly fsType volumeAttributes", nodePublishSecretRef="LocalObjectReference")
_S["VolumeResourceRequirements"] = _struct("limits requests")
_S["PersistentVolumeClaimSpec"] = _struct(
    "accessModes volumeName storageClassName volumeMode volumeAttributesClassName",
    selector="LabelSelector",
    resources="VolumeResourceRequirements",
    dataSource="TypedLocalObjectReference",
    dataSourceRef="TypedObjectReference",
)
_S["PersistentVolumeClaimTemplate"] = _struct(metadata="ObjectMeta", spec="PersistentVolumeClaimSpec")
_S["PersistentVolumeClaim"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="PersistentVolumeClaimSpec")
_S["EphemeralVolumeSource"] = _struct(volumeClaimTemplate="PersistentVolumeClaimTemplate")
_S["ImageVolumeSource"] = _struct("reference pullPolicy")
_S["Volume"] = _struct(
    "name",
    hostPath="HostPathVolumeSource",
    emptyDir="EmptyDirVolumeSource",
    gcePersistentDisk="GCEPersistentDiskVolumeSource",
    awsElasticBlockStore="AWSElasticBlockStoreVolumeSource",
    gitRepo="GitRepoVolumeSource",
    secret="SecretVolumeSource",
    nfs="NFSVolumeSource",
    iscsi="ISCSIVolumeSource",
    glusterfs="GlusterfsVolumeSource",
    persistentVolumeClaim="PersistentVolumeClaimVolumeSource",
    rbd="RBDVolumeSource",
    flexVolume="FlexVolumeSource",
    cinder="CinderVolumeSource",
    cephfs="CephFSVolumeSource",
    flocker="FlockerVolumeSource",
    downwardAPI="DownwardAPIVolumeSource",
    fc="FCVolumeSource",
    azureFile="AzureFileVolumeSource",
    configMap="ConfigMapVolumeSource",
    vsphereVolume="VsphereVirtualDiskVolumeSource",
    quobyte="QuobyteVolumeSource",
    azureDisk="AzureDiskVolumeSource",
    photonPersistentDisk="PhotonPersistentDiskVolumeSource",
    projected="ProjectedVolumeSource",
    portworxVolume="PortworxVolumeSource",
    scaleIO="ScaleIOVolumeSource",
    storageos="StorageOSVolumeSource",
    csi="CSIVolumeSource",
    ephemeral="EphemeralVolumeSource",
    image="ImageVolumeSource",
)

# ------------------------------------------------------------------ core/v1: containers
_S["ContainerPort"] = _struct("name hostPort containerPort protocol hostIP")
_S["ConfigMapEnvSource"] = _struct("optional", _LOCAL_REF)
_S["SecretEnvSource"] = _struct("optional", _LOCAL_REF)
_S["EnvFromSource"] = _struct("prefix", configMapRef="ConfigMapEnvSource", secretRef="SecretEnvSource")
_S["EnvVarSource"] = _struct(
    fieldRef="ObjectFieldSelector",
    resourceFieldRef="ResourceFieldSelector",
    configMapKeyRef="ConfigMapKeySelector",
    secretKeyRef="SecretKeySelector",
    fileKeyRef=_since(34, "FileKeySelector"),
)
_S["EnvVar"] = _struct("name value", valueFrom="EnvVarSource")
_S["ResourceClaim"] = _struct("name request")
_S["ResourceRequirements"] = _struct("limits requests", claims="[ResourceClaim]")
_S["ContainerResizePolicy"] = _struct("resourceName restartPolicy")
_S["ContainerRestartRuleOnExitCodes"] = _struct("operator values")
_S["ContainerRestartRule"] = _struct("action", exitCodes="ContainerRestartRuleOnExitCodes")
_S["VolumeMount"] = _struct("name readOnly recursiveReadOnly mountPath subPath mountPropagation subPathExpr")
_S["VolumeDevice"] = _struct("name devicePath")
_S["ExecAction"] = _struct("command")
_S["HTTPHeader"] = _struct("name value")
_S["HTTPGetAction"] = _struct("path port host scheme", httpHeaders="[HTTPHeader]")
_S["TCPSocketAction"] = _struct("port host")
_S["GRPCAction"] = _struct("port service")
_S["SleepAction"] = _struct("seconds")
_PROBE_HANDLER = _struct(exec="ExecAction", httpGet="HTTPGetAction", tcpSocket="TCPSocketAction", grpc="GRPCAction")
_S["Probe"] = _struct(
    "initialDelaySeconds timeoutSeconds periodSeconds successThreshold failureThreshold terminationGracePeriodSeconds",
    _PROBE_HANDLER,
)
_S["LifecycleHandler"] = _struct(
    exec="ExecAction", httpGet="HTTPGetAction", tcpSocket="TCPSocketAction", sleep="SleepAction"
)
_S["Lifecycle"] = _struct("stopSignal", postStart="LifecycleHandler", preStop="LifecycleHandler")
_S["Capabilities"] = _struct("add drop")
_S["SELinuxOptions"] = _struct("user role type level")
_S["WindowsSecurityContextOptions"] = _struct("gmsaCredentialSpecName gmsaCredentialSpec runAsUserName hostProcess")
_S["SeccompProfile"] = _struct("type localhostProfile")
_S["AppArmorProfile"] = _struct("type localhostProfile")
_S["SecurityContext"] = _struct(
    "privileged runAsUser runAsGroup runAsNonRoot readOnlyRootFilesystem allowPrivilegeEscalation procMount",
    capabilities="Capabilities",
    seLinuxOptions="SELinuxOptions",
    windowsOptions="WindowsSecurityContextOptions",
    seccompProfile="SeccompProfile",
    appArmorProfile="AppArmorProfile",
)
_CONTAINER = _struct(
    "name image command args workingDir restartPolicy terminationMessagePath terminationMessagePolicy"
    " imagePullPolicy stdin stdinOnce tty",
    ports="[ContainerPort]",
    envFrom="[EnvFromSource]",
    env="[EnvVar]",
    resources="ResourceRequirements",
    resizePolicy="[ContainerResizePolicy]",
    restartPolicyRules=_since(34, "[ContainerRestartRule]"),
    volumeMounts="[VolumeMount]",
    volumeDevices="[VolumeDevice]",
    livenessProbe="Probe",
    readinessProbe="Probe",
    startupProbe="Probe",
    lifecycle="Lifecycle",
    securityContext="SecurityContext",
)
_S["Container"] = _CONTAINER
_S["EphemeralContainer"] = _struct("targetContainerName", _CONTAINER)

# ------------------------------------------------------------------ core/v1: the pod
_S["PreferredSchedulingTerm"] = _struct("weight", preference="NodeSelectorTerm")
_S["NodeAffinity"] = _struct(
    requiredDuringSchedulingIgnoredDuringExecution="NodeSelector",
    preferredDuringSchedulingIgnoredDuringExecution="[PreferredSchedulingTerm]",
)
_S["PodAffinityTerm"] = _struct(
    "namespaces topologyKey matchLabelKeys mismatchLabelKeys",
    labelSelector="LabelSelector",
    namespaceSelector="LabelSelector",
)
_S["WeightedPodAffinityTerm"] = _struct("weight", podAffinityTerm="PodAffinityTerm")
_S["PodAffinity"] = _struct(
    requiredDuringSchedulingIgnoredDuringExecution="[PodAffinityTerm]",
    preferredDuringSchedulingIgnoredDuringExecution="[WeightedPodAffinityTerm]",
)
_S["PodAntiAffinity"] = _S["PodAffinity"]
_S["Affinity"] = _struct(nodeAffinity="NodeAffinity", podAffinity="PodAffinity", podAntiAffinity="PodAntiAffinity")
_S["Toleration"] = _struct("key operator value effect tolerationSeconds")
_S["HostAlias"] = _struct("ip hostnames")
_S["Sysctl"] = _struct("name value")
_S["PodSecurityContext"] = _struct(
    "runAsUser runAsGroup runAsNonRoot supplementalGroups supplementalGroupsPolicy fsGroup fsGroupChangePolicy"
    " seLinuxChangePolicy",
    seLinuxOptions="SELinuxOptions",
    windowsOptions="WindowsSecurityContextOptions",
    sysctls="[Sysctl]",
    seccompProfile="SeccompProfile",
    appArmorProfile="AppArmorProfile",
)
_S["PodDNSConfigOption"] = _struct("name value")
_S["PodDNSConfig"] = _struct("nameservers searches", options="[PodDNSConfigOption]")
_S["PodReadinessGate"] = _struct("conditionType")
_S["TopologySpreadConstraint"] = _struct(
    "maxSkew topologyKey whenUnsatisfiable minDomains nodeAffinityPolicy nodeTaintsPolicy matchLabelKeys",
    labelSelector="LabelSelector",
)
_S["PodOS"] = _struct("name")
_S["PodSchedulingGate"] = _struct("name")
_S["PodResourceClaim"] = _struct("name resourceClaimName resourceClaimTemplateName")
_S["WorkloadReference"] = _struct("name podGroup podGroupReplicaKey")
_S["PodSchedulingGroup"] = _struct("podGroupName")
_S["PodSpec"] = _struct(
    "restartPolicy terminationGracePeriodSeconds activeDeadlineSeconds dnsPolicy nodeSelector serviceAccountName"
    " serviceAccount automountServiceAccountToken nodeName hostNetwork hostPID hostIPC shareProcessNamespace"
    " hostname subdomain schedulerName priorityClassName priority runtimeClassName enableServiceLinks"
    " preemptionPolicy overhead setHostnameAsFQDN hostUsers",
    volumes="[Volume]",
    initContainers="[Container]",
    containers="[Container]",
    ephemeralContainers="[EphemeralContainer]",
    securityContext="PodSecurityContext",
    imagePullSecrets="[LocalObjectReference]",
    affinity="Affinity",
    tolerations="[Toleration]",
    hostAliases="[HostAlias]",
    dnsConfig="PodDNSConfig",
    readinessGates="[PodReadinessGate]",
    topologySpreadConstraints="[TopologySpreadConstraint]",
    os="PodOS",
    schedulingGates="[PodSchedulingGate]",
    resourceClaims="[PodResourceClaim]",
    resources="ResourceRequirements",
    hostnameOverride=_since(34),
    workloadRef=Field("WorkloadReference", since=35, until=35),
    schedulingGroup=_since(36, "PodSchedulingGroup"),
)
_S["PodTemplateSpec"] = _struct(metadata="ObjectMeta", spec="PodSpec")
_S["Pod"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="PodSpec")
_S["ReplicationControllerSpec"] = _struct("replicas minReadySeconds selector", template="PodTemplateSpec")
_S["ReplicationController"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="ReplicationControllerSpec")

# ------------------------------------------------------------------ apps/v1
_S["RollingUpdateDeployment"] = _struct("maxUnavailable maxSurge")
_S["DeploymentStrategy"] = _struct("type", rollingUpdate="RollingUpdateDeployment")
_S["DeploymentSpec"] = _struct(
    "replicas minReadySeconds revisionHistoryLimit paused progressDeadlineSeconds",
    selector="LabelSelector",
    template="PodTemplateSpec",
    strategy="DeploymentStrategy",
)
_S["Deployment"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="DeploymentSpec")
_S["ReplicaSetSpec"] = _struct("replicas minReadySeconds", selector="LabelSelector", template="PodTemplateSpec")
_S["ReplicaSet"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="ReplicaSetSpec")
_S["RollingUpdateStatefulSetStrategy"] = _struct("partition maxUnavailable")
_S["StatefulSetUpdateStrategy"] = _struct("type", rollingUpdate="RollingUpdateStatefulSetStrategy")
_S["StatefulSetPersistentVolumeClaimRetentionPolicy"] = _struct("whenDeleted whenScaled")
_S["StatefulSetOrdinals"] = _struct("start")
_S["StatefulSetSpec"] = _struct(
    "replicas serviceName podManagementPolicy revisionHistoryLimit minReadySeconds",
    selector="LabelSelector",
    template="PodTemplateSpec",
    volumeClaimTemplates="[PersistentVolumeClaim]",
    updateStrategy="StatefulSetUpdateStrategy",
    persistentVolumeClaimRetentionPolicy="StatefulSetPersistentVolumeClaimRetentionPolicy",
    ordinals="StatefulSetOrdinals",
)
_S["StatefulSet"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="StatefulSetSpec")
_S["RollingUpdateDaemonSet"] = _struct("maxUnavailable maxSurge")
_S["DaemonSetUpdateStrategy"] = _struct("type", rollingUpdate="RollingUpdateDaemonSet")
_S["DaemonSetSpec"] = _struct(
    "minReadySeconds revisionHistoryLimit",
    selector="LabelSelector",
    template="PodTemplateSpec",
    updateStrategy="DaemonSetUpdateStrategy",
)
_S["DaemonSet"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="DaemonSetSpec")

# ------------------------------------------------------------------ batch/v1
_S["PodFailurePolicyOnExitCodesRequirement"] = _struct("containerName operator values")
_S["PodFailurePolicyOnPodConditionsPattern"] = _struct("type status")
_S["PodFailurePolicyRule"] = _struct(
    "action",
    onExitCodes="PodFailurePolicyOnExitCodesRequirement",
    onPodConditions="[PodFailurePolicyOnPodConditionsPattern]",
)
_S["PodFailurePolicy"] = _struct(rules="[PodFailurePolicyRule]")
_S["SuccessPolicyRule"] = _struct("succeededIndexes succeededCount")
_S["SuccessPolicy"] = _struct(rules="[SuccessPolicyRule]")
_S["JobSpec"] = _struct(
    "parallelism completions activeDeadlineSeconds backoffLimit backoffLimitPerIndex maxFailedIndexes"
    " manualSelector ttlSecondsAfterFinished completionMode suspend podReplacementPolicy managedBy",
    podFailurePolicy="PodFailurePolicy",
    successPolicy="SuccessPolicy",
    selector="LabelSelector",
    template="PodTemplateSpec",
)
_S["Job"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="JobSpec")
_S["JobTemplateSpec"] = _struct(metadata="ObjectMeta", spec="JobSpec")
_S["CronJobSpec"] = _struct(
    "schedule timeZone startingDeadlineSeconds concurrencyPolicy suspend successfulJobsHistoryLimit"
    " failedJobsHistoryLimit",
    jobTemplate="JobTemplateSpec",
)
_S["CronJob"] = _struct("status", _TYPE_META, metadata="ObjectMeta", spec="CronJobSpec")

# Every struct by name, each a table of its fields by JSON name.
STRUCTS: Mapping[str, Mapping[str, Field]] = MappingProxyType({name: MappingProxyType(f) for name, f in _S.items()})

# The kinds whose manifests are checked: each is the struct of its name.
KINDS = (
    "Pod",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
    "PersistentVolumeClaim",
)
