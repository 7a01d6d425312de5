"""What a request names, looked up in the snapshot: a pod, a namespace, a node. A name that is
not there is an error with the closest names (kubectl's habits: TYPE/NAME, NAMESPACE/NAME)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from podwhy.analysis.pending import is_pending
from podwhy.errors import PodwhyError, UsageError
from podwhy.framework.types import pod_key
from podwhy.model import objects as o
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import SnapshotSource


def kindless_note(snapshot: Snapshot) -> str:
    """For an error on an empty snapshot: the documents without a kind it skipped, if any."""
    if not snapshot.kindless:
        return ""
    source, where = snapshot.kindless[0]
    count = len(snapshot.kindless)
    skipped = "1 document without a kind was" if count == 1 else f"{count:,} documents without a kind were"
    return f"; {skipped} skipped ({source}: {where}{', ...' if count > 1 else ''})"


# What kubectl takes before a slash for a pod (`kubectl get pod/web`): the resource, not a namespace.
POD_RESOURCE_NAMES = frozenset({"pod", "pods", "po"})


def split_pod_ref(ref: str, namespace: str) -> tuple[str, str]:
    """NAME, NAMESPACE/NAME, or kubectl's TYPE/NAME (`pod/NAME`, `pods/NAME`, `po/NAME`, the
    namespace from -n): kubectl's reading wins over a namespace named pod, pods or po."""
    kind, slash, rest = ref.partition("/")
    if slash and kind.lower() in POD_RESOURCE_NAMES and rest and "/" not in rest:
        return namespace, rest
    if "/" in ref:
        ns, _, name = ref.partition("/")
        if not ns or not name or "/" in name:
            raise UsageError(f"invalid pod reference {ref!r}", hint="use NAME, NAMESPACE/NAME or pod/NAME")
        return ns, name
    return namespace, ref


def closest(name: str, candidates: Sequence[str]) -> list[str]:
    """Up to three names close to `name`, for "did you mean" hints."""
    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)


def check_namespace(snapshot: Snapshot, namespace: str, source: SnapshotSource | None = None) -> None:
    """A namespace the snapshot does not show is an error naming the closest ones, never an empty
    (all-clear) answer: no Namespace object of that name and no object in it. When the
    Namespaces could not be listed, a live source is asked for the one Namespace."""
    if snapshot.has_namespace(namespace):
        return
    listed = "Namespace" in snapshot.kinds_seen and "Namespace" not in snapshot.missing
    ask = getattr(source, "namespace_exists", None)
    if not listed and ask is not None:
        exists = ask(namespace)
        if exists:
            return
        listed = exists is False
    known = sorted(snapshot.namespace_names())
    where = "the cluster has no such Namespace" if listed else "the snapshot holds no Namespace or object of that name"
    close = closest(namespace, known)
    if close:
        hint = f"closest: {', '.join(close)}"
    elif known:
        hint = f"the snapshot has {len(known)} namespace{'s' if len(known) != 1 else ''}: {', '.join(known[:5])}"
        hint += ", …" if len(known) > 5 else ""
    else:
        hint = "the snapshot holds no namespaced objects"
    raise PodwhyError(f"namespace {namespace!r} not found: {where}", hint=hint)


def find_pod(snapshot: Snapshot, namespace: str, name: str, source: SnapshotSource | None = None) -> o.Pod:
    for pod in snapshot.pods:
        if pod.metadata.name == name and pod.metadata.namespace == namespace:
            return pod
    check_namespace(snapshot, namespace, source)
    if not snapshot.pods:
        raise PodwhyError(
            f"pod {namespace}/{name} not found: the snapshot holds no pods",
            hint="pass a dump that includes Pods, or the pod itself with -f pod.yaml",
        )
    keys = [pod_key(p) for p in snapshot.pods]
    close = closest(f"{namespace}/{name}", keys)
    if not close:
        close = [k for k in keys if k.endswith("/" + name)][:3]
    hints = [f"closest: {', '.join(close)}"] if close else []
    waiting = pending_examples(snapshot, namespace, set(close))
    hints += [waiting] if waiting else []
    hint = "; ".join(hints) or f"the snapshot has {len(keys)} pods, e.g. {', '.join(keys[:3])}"
    raise PodwhyError(f"pod {namespace}/{name} not found in the snapshot", hint=hint)


# How many of the snapshot's Pending pods a "not found" hint offers.
PENDING_EXAMPLES = 3


def pending_examples(snapshot: Snapshot, namespace: str, named: set[str]) -> str | None:
    """A few of the pods that wait for a node, those of NAMESPACE first, none NAMED already: what
    one may have meant to explain (NAMESPACE/NAME; the error line escapes what they hold)."""
    waiting = [p for p in snapshot.pods if is_pending(p) and not p.spec.node_name and pod_key(p) not in named]
    if not waiting:
        return None
    waiting.sort(key=lambda p: p.metadata.namespace != namespace)  # stable: the snapshot's order otherwise
    shown = ", ".join(pod_key(p) for p in waiting[:PENDING_EXAMPLES])
    more = f", … ({len(waiting):,} in all)" if len(waiting) > PENDING_EXAMPLES else ""
    return f"Pending pods: {shown}{more}"


def check_node(snapshot: Snapshot, node: str) -> None:
    names = [n.metadata.name for n in snapshot.nodes]
    if node in names:
        return
    close = closest(node, names)
    hint = f"closest: {', '.join(close)}" if close else f"the snapshot has {len(names)} nodes"
    raise UsageError(f"--node {node!r}: no such node in the snapshot", hint=hint)
