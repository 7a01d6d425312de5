"""The verdict table's words: plain column headers for the Filter and Score plugins, and the short
"why not" cell of a group of nodes ("cpu: needs 2, free 900m–1400m"), from the evidence each
plugin recorded. `-o wide` and JSON keep the plugins' own names and reason strings."""

from __future__ import annotations

from collections.abc import Sequence

from podwhy.framework.evidence import (
    AnyEvidence,
    DeviceRequestEvidence,
    DiskConflictEvidence,
    HostPortEvidence,
    NodeAffinityTermEvidence,
    NodeNameEvidence,
    NodeSelectorEvidence,
    PodAffinityTermEvidence,
    ReadWriteOncePodEvidence,
    ResourceEvidence,
    TaintEvidence,
    TopologySpreadEvidence,
    UnschedulableEvidence,
    VolumeCountEvidence,
    VolumeZoneEvidence,
)
from podwhy.model.wellknownnames import TAINT_NODE_UNSCHEDULABLE
from podwhy.plugins import names
from podwhy.report.model import PluginStatus

# Column headers of the verdict and score tables: what each plugin checks, in a user's words (a
# line break where two words would widen the column).
COLUMN_WORDS = {
    names.NODE_UNSCHEDULABLE: "Cordon",
    names.NODE_NAME: "Node\nname",
    names.TAINT_TOLERATION: "Taints",
    names.NODE_AFFINITY: "Node\nlabels",
    names.NODE_PORTS: "Host\nports",
    names.NODE_RESOURCES_FIT: "Room",
    names.VOLUME_RESTRICTIONS: "Volume\nconflict",
    names.NODE_VOLUME_LIMITS: "Volume\nlimit",
    names.VOLUME_BINDING: "Volumes",
    names.VOLUME_ZONE: "Volume\nzone",
    names.POD_TOPOLOGY_SPREAD: "Spread",
    names.INTER_POD_AFFINITY: "Pod\naffinity",
    names.DYNAMIC_RESOURCES: "Devices",
    names.NODE_RESOURCES_BALANCED_ALLOCATION: "Balance",
    names.IMAGE_LOCALITY: "Images",
}

CORDONED = "cordoned"
# The taint the node lifecycle controller puts on a cordoned node, as its fact says it.
CORDON_TAINT_FACT = f"taint {TAINT_NODE_UNSCHEDULABLE}:NoSchedule not tolerated"

# Distinct facts of one plugin shown in a group's cell before "+N more".
MAX_FACTS = 2

MI = 1024 * 1024
BINARY_UNITS = (("Gi", 1024 * MI), ("Mi", MI), ("Ki", 1024))


def amount_text(resource: str, amount: int) -> str:
    if resource == "cpu":
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for unit, size in (("Gi", 1024 * MI), ("Mi", MI), ("Ki", 1024)):
            if amount >= size and amount % size == 0:
                return f"{amount // size}{unit}"
    return str(amount)


def column_header(plugin: str, wide: bool) -> str:
    """The plugin's column header: its name with -o wide (and for plugins podwhy has no words for)."""
    return plugin if wide else COLUMN_WORDS.get(plugin, plugin)


def short_amount(resource: str, amount: int, up: bool = False) -> str:
    """An amount as a cell shows it: memory-like ones in their largest unit, to a tenth when not
    round, rounded down ("3.4Gi" free: never more than there is) or, with UP, up (a request: never
    less than it asks); others as everywhere (amount_text: "1400m")."""
    binary = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
    if binary:
        for unit, size in BINARY_UNITS:
            if amount >= size:
                whole, rest = divmod(amount, size)
                if not rest:
                    return f"{whole}{unit}"
                tenths = -(-amount * 10 // size) if up else amount * 10 // size
                return f"{tenths // 10}.{tenths % 10}{unit}"
    return amount_text(resource, amount)


def _span(resource: str, amounts: Sequence[int]) -> str:
    low, high = min(amounts), max(amounts)
    if low == high:
        return short_amount(resource, low)
    return f"{short_amount(resource, low)}–{short_amount(resource, high)}"


def _is_extended(resource: str) -> bool:
    # Loaded only for a resource no node advertises: drawing a table stays within 30 modules (issue 36).
    from podwhy.helpers.resourcenames import is_extended_resource_name

    return is_extended_resource_name(resource)


def _resource_facts(evidence: Sequence[ResourceEvidence]) -> list[str]:
    """ "cpu: needs 2, free 900m–1400m", one per resource, over the group's nodes."""
    by_resource: dict[str, list[ResourceEvidence]] = {}
    for e in evidence:
        by_resource.setdefault(e.resource, []).append(e)
    out: list[str] = []
    for resource, seen in by_resource.items():
        needs = short_amount(resource, seen[0].requested, up=True)
        if resource == "pods":
            out.append(f"pods: full ({_span(resource, [e.allocatable for e in seen])} allowed)")
        elif all(e.allocatable == 0 for e in seen) and _is_extended(resource):
            out.append(f"{resource}: needs {needs}, not advertised")
        elif all(e.exceeds_allocatable for e in seen):
            out.append(f"{resource}: needs {needs}, has {_span(resource, [e.allocatable for e in seen])} in all")
        else:
            out.append(f"{resource}: needs {needs}, free {_span(resource, [max(e.free, 0) for e in seen])}")
    return out


def _fact(e: AnyEvidence) -> str | None:
    """One fact in a few words; None for kinds said otherwise (resources) or not said here."""
    match e:
        case TaintEvidence():
            return f"taint {e.taint} not tolerated"
        case UnschedulableEvidence():
            return CORDONED
        case NodeNameEvidence():
            return f"pod asks for node {e.requested}"
        case NodeSelectorEvidence(node_value=None):
            return f"no label {e.key} (nodeSelector wants {e.required})"
        case NodeSelectorEvidence():
            return f"label {e.key}={e.node_value}, nodeSelector wants {e.required}"
        case NodeAffinityTermEvidence(unmatched=[first, *_]):
            term = f"term {e.term}" if isinstance(e.term, int) else "affinity"
            return f"node affinity {term}: {first}"
        case HostPortEvidence():
            return f"host port {e.host_port}/{e.protocol} in use"
        case TopologySpreadEvidence(missing_label=str(label)):
            return f"no label {label} (topology key)"
        case TopologySpreadEvidence(skew=int(skew)):
            return f"{e.topology_key}: skew {skew} > maxSkew {e.max_skew}"
        case PodAffinityTermEvidence(rule="affinity"):
            return f"no pod matching {e.selector} in its {e.topology_key}"
        case PodAffinityTermEvidence(rule="antiAffinity"):
            return f"a pod matching {e.selector} in its {e.topology_key} (anti-affinity)"
        case PodAffinityTermEvidence(rule="existingAntiAffinity", pod=str(pod)):
            return f"anti-affinity of {pod}"
        case VolumeCountEvidence():
            return f"{e.driver}: {e.attached} + {e.new} volumes > limit {e.limit}"
        case VolumeZoneEvidence():
            return f"volume {e.persistent_volume} in {e.label}={','.join(e.volume_values)}"
        case DiskConflictEvidence():
            return f"disk {e.disk} in use by {e.conflicting_pod}"
        case ReadWriteOncePodEvidence():
            return f"ReadWriteOncePod claim in use by {', '.join(e.in_use_by)}"
        case DeviceRequestEvidence():
            return f"{e.claim}/{e.request}: {e.free_matching_devices} of {e.matching_devices} matching devices free"
    return None


def why_cell(per_plugin: Sequence[Sequence[PluginStatus]]) -> list[str]:
    """A group's cell: each rejecting plugin's facts (why_facts), in the order given; a cordoned
    node's own taint (node.kubernetes.io/unschedulable) goes unsaid beside "cordoned"."""
    facts = [fact for statuses in per_plugin for fact in why_facts(statuses)]
    if CORDONED in facts:
        facts = [f for f in facts if f != CORDON_TAINT_FACT]
    return facts


def why_facts(statuses: Sequence[PluginStatus]) -> list[str]:
    """One plugin's rejection over a group of nodes, in short facts (distinct ones, the first
    MAX_FACTS, then "+N more"); its reason strings when its evidence says nothing here. A status
    given again (nodes of one verdict share theirs) adds nothing: it is read once."""
    statuses = list({id(st): st for st in statuses}.values())
    resources = [e for st in statuses for e in st.evidence or () if isinstance(e, ResourceEvidence)]
    facts = _resource_facts(resources)
    for st in statuses:
        for e in st.evidence or ():
            said = _fact(e)
            if said is not None and said not in facts:
                facts.append(said)
    if not facts:
        facts = list(dict.fromkeys(reason for st in statuses for reason in st.reasons))
    if len(facts) > MAX_FACTS + 1:
        facts = [*facts[:MAX_FACTS], f"+{len(facts) - MAX_FACTS} more"]
    return facts


def consumers_text(resource: str, consumers: Sequence[tuple[str, int]]) -> str:
    """ "held most by shop/web-a (1), shop/web-b (500m)": each pod with what it requests of RESOURCE."""
    if not consumers:
        return ""
    held = ", ".join(f"{pod} ({short_amount(resource, amount, up=True)})" for pod, amount in consumers)
    return f"held most by {held}"
