"""Reading Cluster Autoscaler's status ConfigMap: both formats (structured YAML of CA >= 1.30, the
text of older releases), and a one-line PodwhyError naming the ConfigMap for anything else."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.errors import PodwhyError
from podwhy.model import autoscalerstatus as ca
from podwhy.model.objects import ConfigMap, ObjectMeta
from podwhy.snapshot.autoscalerconfigmap import (
    LAST_UPDATED_ANNOTATION,
    last_updated,
    parse_status,
    parse_time,
    read_configmap,
)
from podwhy.snapshot.source import FileSource
from tests.paths import REPO

FIXTURES = REPO / "fixtures" / "autoscaling"
WHERE = "ConfigMap kube-system/cluster-autoscaler-status"


def _fixture_status(name: str) -> ca.ClusterAutoscalerStatus:
    snapshot = FileSource([str(FIXTURES / name)]).load()
    return read_configmap(snapshot.autoscaler_status["kube-system/cluster-autoscaler-status"])


# ng-general at its max size, ng-gpu in backoff: both fixtures tell the same cluster.
GENERAL = ca.NodeGroupStatus(
    name="ng-general",
    health=ca.HEALTHY,
    ready=5,
    registered=5,
    not_started=0,
    unready=0,
    unregistered=0,
    long_unregistered=0,
    target=5,
    min_size=1,
    max_size=5,
    scale_up=ca.SCALE_UP_NO_ACTIVITY,
    scale_up_since="2025-03-10T09:00:00Z",
)
GPU = ca.NodeGroupStatus(
    name="ng-gpu",
    health=ca.HEALTHY,
    ready=0,
    registered=0,
    not_started=0,
    unready=0,
    unregistered=1,
    long_unregistered=0,
    target=1,
    min_size=0,
    max_size=4,
    scale_up=ca.SCALE_UP_BACKOFF,
    scale_up_since="2025-03-10T11:50:00Z",
    backoff_code="placeholder-cannot-be-fulfilled",
    backoff_message="AWS cannot provision any more instances for this node group",
)
BUILT_TIME = "2025-03-10 12:00:05.123456789 +0000 UTC"


def _text_group(group: ca.NodeGroupStatus, since: str) -> ca.NodeGroupStatus:
    """GROUP as the text format tells it: no unregistered count, no backoff code, Go time text."""
    return ca.NodeGroupStatus(
        **{
            **msgspec.structs.asdict(group),
            "unregistered": None,
            "backoff_code": "",
            "backoff_message": "",
            "scale_up_since": since,
        }
    )


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        (
            "ca-status-yaml.yaml",
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.YAML,
                time=BUILT_TIME,
                autoscaler_status=ca.RUNNING,
                cluster_health=ca.HEALTHY,
                cluster_scale_up=ca.SCALE_UP_NO_ACTIVITY,
                node_groups=[GENERAL, GPU],
            ),
        ),
        (
            "ca-status-text.yaml",
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.TEXT,
                time=BUILT_TIME,
                autoscaler_status=ca.RUNNING,
                cluster_health=ca.HEALTHY,
                cluster_scale_up=ca.SCALE_UP_NO_ACTIVITY,
                node_groups=[
                    _text_group(GENERAL, "2025-03-10 09:00:00.5 +0000 UTC"),
                    _text_group(GPU, "2025-03-10 11:50:00.1 +0000 UTC"),
                ],
            ),
        ),
    ],
)
def test_the_built_fixtures_read_whole(fixture: str, expected: ca.ClusterAutoscalerStatus) -> None:
    status = _fixture_status(fixture)
    assert status == expected
    general, gpu = status.node_groups
    assert general.at_max_size and not gpu.at_max_size
    assert gpu.scale_up == ca.SCALE_UP_BACKOFF


def test_the_fixtures_annotation_says_when_ca_wrote_it() -> None:
    cm = FileSource([str(FIXTURES / "ca-status-yaml.yaml")]).load().autoscaler_status
    status = cm["kube-system/cluster-autoscaler-status"]
    assert LAST_UPDATED_ANNOTATION in status.metadata.annotations
    assert last_updated(status) == datetime(2025, 3, 10, 12, 0, 5, 123456, tzinfo=UTC)
    assert last_updated(ConfigMap()) is None


# CA 1.37's own test fixture (clusterstate/utils/status_test.yaml): quoted values, keys in
# declaration order, `suspended` and `beingDeleted` (1.37 only), a GCE quota backoff.
CA_137_FIXTURE = """\
time: "2023-11-24 04:28:19.546750398 +0000 UTC"
message: "TEST_MSG"
autoscalerStatus: "Running"
clusterWide:
  health:
    status: "Healthy"
    nodeCounts:
      registered: {total: 11, ready: 4, notStarted: 3, suspended: 1, beingDeleted: 1, unready: {total: 2, resourceUnready: 1}}
      longUnregistered: 1
      unregistered: 2
    lastProbeTime: "2023-11-24T04:28:19Z"
    lastTransitionTime: "2023-11-23T14:52:02Z"
  scaleUp: {status: "NoActivity", lastProbeTime: "2023-11-24T04:28:19Z", lastTransitionTime: "2023-11-23T14:52:02Z"}
  scaleDown: {status: "NoCandidates", candidates: 2}
nodeGroups:
  -
    name: "sample-node-group"
    health:
      status: "Healthy"
      nodeCounts:
        registered: {total: 11, ready: 4, notStarted: 3, suspended: 1, beingDeleted: 1, unready: {total: 2, resourceUnready: 1}}
        longUnregistered: 1
        unregistered: 2
      cloudProviderTarget: 8
      minSize: 2
      maxSize: 12
    scaleUp:
      status: "Backoff"
      backoffInfo:
        errorCode: "QUOTA_EXCEEDED"
        errorMessage: "Instance 'sample-node-group-40ce0341-t28s' creation failed: Quota 'CPUS' exceeded. Limit: 57.0 in region us-central1."
      lastProbeTime: "2023-11-24T04:28:19Z"
      lastTransitionTime: "2023-11-23T14:52:02Z"
"""  # noqa: E501 - the lines as CA writes them

# CA's marshalled status of an empty cluster (status_test.go): zero times are null.
CA_EMPTY_MARSHALLED = """\
clusterWide:
  health:
    lastProbeTime: null
    lastTransitionTime: null
    nodeCounts:
      longUnregistered: 0
      registered:
        notStarted: 0
        ready: 0
        suspended: 0
        total: 0
        unready:
          resourceUnready: 0
          total: 0
      unregistered: 0
  scaleDown:
    lastProbeTime: null
    lastTransitionTime: null
  scaleUp:
    lastProbeTime: null
    lastTransitionTime: null
message: TEST_MSG
time: 2023-12-21 00:00:00 +0000 UTC
"""

# Pre-1.24 text (no resourceUnready, a real longNotStarted), and the 2017 one with (min=, max=).
TEXT_1_18 = """\
Cluster-autoscaler status at 2020-06-01 10:00:00.1 +0000 UTC:
Cluster-wide:
  Health:      Healthy (ready=3 unready=0 notStarted=0 longNotStarted=0 registered=3 longUnregistered=0)
               LastProbeTime:      2020-06-01 10:00:00.05 +0000 UTC m=+3600.1
               LastTransitionTime: 2020-06-01 09:00:00.05 +0000 UTC m=+0.1
  ScaleUp:     InProgress (ready=3 registered=3)
               LastProbeTime:      2020-06-01 10:00:00.05 +0000 UTC m=+3600.1
               LastTransitionTime: 2020-06-01 09:59:00.05 +0000 UTC m=+3540.1
  ScaleDown:   NoCandidates (candidates=0)
               LastProbeTime:      2020-06-01 10:00:00.05 +0000 UTC m=+3600.1
               LastTransitionTime: 2020-06-01 09:00:00.05 +0000 UTC m=+0.1

NodeGroups:
  Name:        eks-ue1-prod-worker-group-staging-120200506102140590500000013
  Health:      Healthy (ready=3 unready=0 notStarted=0 longNotStarted=1 registered=3 longUnregistered=0 cloudProviderTarget=4 (minSize=1, maxSize=10))
               LastProbeTime:      2020-06-01 10:00:00.05 +0000 UTC m=+3600.1
               LastTransitionTime: 2020-06-01 09:00:00.05 +0000 UTC m=+0.1
  ScaleUp:     InProgress (ready=3 cloudProviderTarget=4)
               LastProbeTime:      2020-06-01 10:00:00.05 +0000 UTC m=+3600.1
               LastTransitionTime: 2020-06-01 09:59:00.05 +0000 UTC m=+3540.1
  ScaleDown:   NoCandidates (candidates=0)
               LastProbeTime:      2020-06-01 10:00:00.05 +0000 UTC m=+3600.1
               LastTransitionTime: 2020-06-01 09:00:00.05 +0000 UTC m=+0.1

"""  # noqa: E501 - the lines as CA writes them
TEXT_2017 = """\
Cluster-autoscaler status at 2017-09-01 10:00:00.1 +0000 UTC:
Cluster-wide:
  Health:      Healthy (ready=5 unready=0 notStarted=0 longNotStarted=0 registered=5)
               LastProbeTime:      2017-09-01 10:00:00.05 +0000 UTC
               LastTransitionTime: 2017-09-01 09:00:00.05 +0000 UTC
  ScaleUp:     NoActivity (ready=5 registered=5)
               LastProbeTime:      2017-09-01 10:00:00.05 +0000 UTC
               LastTransitionTime: 2017-09-01 09:00:00.05 +0000 UTC

NodeGroups:
  Name:        https://content.googleapis.com/compute/v1/projects/p/zones/us-central1-b/instanceGroups/gke-c-default-pool-1a2b3c4d-grp
  Health:      Healthy (ready=5 unready=0 notStarted=0 longNotStarted=0 registered=5 cloudProviderTarget=5 (min=5, max=5))
               LastProbeTime:      2017-09-01 10:00:00.05 +0000 UTC
               LastTransitionTime: 2017-09-01 09:00:00.05 +0000 UTC
  ScaleUp:     NoActivity (ready=5 cloudProviderTarget=5)
               LastProbeTime:      2017-09-01 10:00:00.05 +0000 UTC
               LastTransitionTime: 2017-09-01 09:00:00.05 +0000 UTC

"""  # noqa: E501 - the lines as CA writes them
# A group whose Health condition CA has not set: `<unknown>` and no line break (GetReadableString).
TEXT_UNKNOWN_HEALTH = (
    "Cluster-autoscaler status at 2023-01-01 00:00:00 +0000 UTC:\n"
    "Cluster-wide:\n"
    "  Health:      Healthy (ready=1 registered=1)\n"
    "NodeGroups:\n"
    "  Name:        ng-a\n"
    "  Health:      <unknown>  ScaleUp:     Backoff (ready=0 cloudProviderTarget=0)\n"
    "               LastProbeTime:      2023-01-01 00:00:00 +0000 UTC m=+1.0\n"
    "               LastTransitionTime: 2022-12-31 23:55:00 +0000 UTC m=+0.5\n"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "Cluster-autoscaler status at 2023-11-29 13:34:29.001925665 +0000 UTC:\nInitializing",
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.TEXT,
                time="2023-11-29 13:34:29.001925665 +0000 UTC",
                autoscaler_status=ca.INITIALIZING,
            ),
            id="text-initializing",
        ),
        pytest.param(
            "autoscalerStatus: Initializing\ntime: 2025-03-10 12:00:00 +0000 UTC\n",
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.YAML, time="2025-03-10 12:00:00 +0000 UTC", autoscaler_status=ca.INITIALIZING
            ),
            id="yaml-initializing",
        ),
        pytest.param(
            "autoscalerStatus: Initializing\nmessage: Cluster has no ready nodes.\n"
            "time: 2025-03-10 12:00:00 +0000 UTC\n",
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.YAML,
                time="2025-03-10 12:00:00 +0000 UTC",
                autoscaler_status=ca.INITIALIZING,
                message="Cluster has no ready nodes.",
            ),
            id="yaml-no-ready-nodes",
        ),
        pytest.param(
            CA_137_FIXTURE,
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.YAML,
                time="2023-11-24 04:28:19.546750398 +0000 UTC",
                autoscaler_status=ca.RUNNING,
                message="TEST_MSG",
                cluster_health=ca.HEALTHY,
                cluster_scale_up=ca.SCALE_UP_NO_ACTIVITY,
                node_groups=[
                    ca.NodeGroupStatus(
                        name="sample-node-group",
                        health=ca.HEALTHY,
                        ready=4,
                        registered=11,
                        not_started=3,
                        unready=2,
                        unregistered=2,
                        long_unregistered=1,
                        target=8,
                        min_size=2,
                        max_size=12,
                        scale_up=ca.SCALE_UP_BACKOFF,
                        scale_up_since="2023-11-23T14:52:02Z",
                        backoff_code="QUOTA_EXCEEDED",
                        backoff_message=(
                            "Instance 'sample-node-group-40ce0341-t28s' creation failed: Quota 'CPUS' exceeded."
                            " Limit: 57.0 in region us-central1."
                        ),
                    )
                ],
            ),
            id="ca-1.37-test-fixture",
        ),
        pytest.param(
            CA_EMPTY_MARSHALLED,
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.YAML, time="2023-12-21 00:00:00 +0000 UTC", message="TEST_MSG"
            ),
            id="yaml-null-times",
        ),
        pytest.param(
            TEXT_1_18,
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.TEXT,
                time="2020-06-01 10:00:00.1 +0000 UTC",
                autoscaler_status=ca.RUNNING,
                cluster_health=ca.HEALTHY,
                cluster_scale_up=ca.SCALE_UP_IN_PROGRESS,
                node_groups=[
                    ca.NodeGroupStatus(
                        name="eks-ue1-prod-worker-group-staging-120200506102140590500000013",
                        health=ca.HEALTHY,
                        ready=3,
                        registered=3,
                        not_started=0,
                        unready=0,
                        long_unregistered=0,
                        target=4,
                        min_size=1,
                        max_size=10,
                        scale_up=ca.SCALE_UP_IN_PROGRESS,
                        scale_up_since="2020-06-01 09:59:00.05 +0000 UTC",
                    )
                ],
            ),
            id="text-1.18",
        ),
        pytest.param(
            TEXT_2017,
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.TEXT,
                time="2017-09-01 10:00:00.1 +0000 UTC",
                autoscaler_status=ca.RUNNING,
                cluster_health=ca.HEALTHY,
                cluster_scale_up=ca.SCALE_UP_NO_ACTIVITY,
                node_groups=[
                    ca.NodeGroupStatus(
                        name="https://content.googleapis.com/compute/v1/projects/p/zones/us-central1-b/instanceGroups/"
                        "gke-c-default-pool-1a2b3c4d-grp",
                        health=ca.HEALTHY,
                        ready=5,
                        registered=5,
                        not_started=0,
                        unready=0,
                        target=5,
                        min_size=5,
                        max_size=5,
                        scale_up=ca.SCALE_UP_NO_ACTIVITY,
                        scale_up_since="2017-09-01 09:00:00.05 +0000 UTC",
                    )
                ],
            ),
            id="text-2017-min-max",
        ),
        pytest.param(
            TEXT_UNKNOWN_HEALTH,
            ca.ClusterAutoscalerStatus(
                format=ca.StatusFormat.TEXT,
                time="2023-01-01 00:00:00 +0000 UTC",
                autoscaler_status=ca.RUNNING,
                cluster_health=ca.HEALTHY,
                node_groups=[
                    ca.NodeGroupStatus(
                        name="ng-a",
                        ready=0,
                        target=0,
                        scale_up=ca.SCALE_UP_BACKOFF,
                        scale_up_since="2022-12-31 23:55:00 +0000 UTC",
                    )
                ],
            ),
            id="text-unknown-health",
        ),
    ],
)
def test_status_formats(text: str, expected: ca.ClusterAutoscalerStatus) -> None:
    assert parse_status(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "data.status is empty"),
        ("  \n\n", "data.status is empty"),
        ("hello", "is not a Cluster Autoscaler status: it starts 'hello'"),
        ("- a\n- b\n", "is not a Cluster Autoscaler status"),
        ("foo: bar\n", "is not a Cluster Autoscaler status"),
        ("autoscalerStatus: [Running\n", "nor valid YAML (line 2, column 1)"),
        ("autoscalerStatus: Running\nnodeGroups:\n- name: a\n  health: {maxSize: five}\n", "is invalid: Expected `int"),
        ("autoscalerStatus: Running\nnodeGroups:\n- health: {maxSize: 5}\n", "nodeGroups[0] has no name"),
        (
            "autoscalerStatus: Running\nautoscalerStatus: Running\n",
            'line 2: mapping key "autoscalerStatus" already defined at line 1',
        ),
        ("Cluster-autoscaler status at 2023-01-01", "line 1: the header is not"),
        ("Cluster-autoscaler status at 2023-01-01:", "line 1: nothing follows the header"),
        ("Cluster-autoscaler status at 2023-01-01:\nRunning\n", "line 2: expected 'Cluster-wide:'"),
        (
            "Cluster-autoscaler status at 2023-01-01:\nCluster-wide:\n  Health Healthy\n",
            "line 3: not a condition line",
        ),
        (
            "Cluster-autoscaler status at 2023-01-01:\nCluster-wide:\nNodeGroups:\n  Health:      Healthy\n",
            "line 4: a condition of no node group",
        ),
        (
            "Cluster-autoscaler status at 2023-01-01:\nCluster-wide:\n  LastProbeTime: 2023-01-01\n",
            "line 3: a time with no condition before it",
        ),
        (
            "Cluster-autoscaler status at 2023-01-01:\nCluster-wide:\nNodeGroups:\n  Name:        ng\n"
            "  Health:      Healthy (cloudProviderTarget=x (minSize=1, maxSize=2))\n",
            "line 5: cloudProviderTarget=x is not a whole number",
        ),
        ("Cluster-autoscaler status at 2023-01-01:\nCluster-wide:\nNodeGroups:\n  Name:\n", "line 4: a node group"),
    ],
)
def test_what_cannot_be_read_is_one_line_naming_the_configmap(text: str, fragment: str) -> None:
    with pytest.raises(PodwhyError) as caught:
        parse_status(text)
    message = caught.value.message
    assert message.startswith(f"{WHERE}: ") and fragment in message
    assert "\n" not in message


def test_a_configmap_without_the_status_key_is_named() -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="cluster-autoscaler-status", namespace="autoscaler"), data={"x": "y"})
    with pytest.raises(PodwhyError, match=r'^ConfigMap autoscaler/cluster-autoscaler-status: no "status" key'):
        read_configmap(cm)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-03-10 12:00:05.123456789 +0000 UTC", datetime(2025, 3, 10, 12, 0, 5, 123456, tzinfo=UTC)),
        ("2023-12-21 00:00:00 +0000 UTC", datetime(2023, 12, 21, tzinfo=UTC)),
        (
            "2023-11-29 13:34:28.808043334 +0000 UTC m=+1081389.237180180",
            datetime(2023, 11, 29, 13, 34, 28, 808043, tzinfo=UTC),
        ),
        ("2025-03-10 13:00:05 +0100 CET", datetime(2025, 3, 10, 12, 0, 5, tzinfo=UTC)),
        ("2023-11-24T04:28:19Z", datetime(2023, 11, 24, 4, 28, 19, tzinfo=UTC)),
        ("0001-01-01 00:00:00 +0000 UTC", None),
        ("2023-11-24T04:28:19", None),
        ("yesterday", None),
        ("", None),
    ],
)
def test_times(text: str, expected: datetime | None) -> None:
    assert parse_time(text) == expected


# ---------------------------------------------------------------------- any text


def _header_lines() -> st.SearchStrategy[str]:
    line = st.one_of(
        st.sampled_from(
            [
                "Cluster-wide:",
                "NodeGroups:",
                "  Name:        ng-a",
                "  Health:      Healthy (ready=1 cloudProviderTarget=2 (minSize=0, maxSize=3))",
                "  ScaleUp:     Backoff (ready=0 cloudProviderTarget=1)",
                "  Health:      <unknown>  ScaleUp:     NoActivity",
                "               LastTransitionTime: 2025-03-10 09:00:00.5 +0000 UTC m=+0.7",
                "Initializing",
                "",
            ]
        ),
        st.text(max_size=40),
    )
    return st.lists(line, max_size=12).map(lambda lines: "Cluster-autoscaler status at t:\n" + "\n".join(lines))


_yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["autoscalerStatus", "nodeGroups", "name", "health", "scaleUp", "maxSize", "nodeCounts", "time", "x"]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), _header_lines(), _yaml_values.map(lambda v: yaml.safe_dump(v))))
def test_any_text_reads_or_is_a_podwhy_error(text: str) -> None:
    try:
        status = parse_status(text)
    except PodwhyError as exc:
        assert exc.message.startswith(WHERE) and "\n" not in exc.message
    else:
        assert isinstance(status, ca.ClusterAutoscalerStatus)
        assert all(group.name for group in status.node_groups)


def test_a_long_message_reads_in_linear_time() -> None:
    """A status is text anyone with write access to kube-system may write. A message of 200,000
    letters and no `=` took Python's backtracking `([A-Za-z]+)=` minutes (quadratic: 10 s at
    40,000); the patterns run on RE2, linear in the text, and it reads at once."""
    letters = "a" * 200_000
    text = (
        "Cluster-autoscaler status at 2023-01-01 10:00:00 +0000 UTC:\nCluster-wide:\n"
        "  Health:      Healthy (ready=3)\nNodeGroups:\n  Name:        ng\n"
        f"  Health:      Healthy ({letters} ready=3 {letters} (minSize=1, maxSize=5))\n"
    )
    status = parse_status(text)
    (group,) = status.node_groups
    assert (status.cluster_health, group.name, group.ready, group.max_size) == ("Healthy", "ng", 3, 5)
