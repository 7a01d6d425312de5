"""pkg/scheduler/flavorassigner: which flavor each pod set's resources get in a ClusterQueue, and
how (Fit, Preempt, NoFit), with Kueue's own messages (Assignment.Message) and the QuotaReserved
reason they stand for (resolveNoFitReason).

A fresh scan: every resource group from its first flavor (Kueue resumes a requeued Workload's
scan where the last one stopped). Where Kueue would simulate preemption, the oracle answers
(assignment.policy_oracle by default: exact when the policies allow no candidate, else an
assumption it flags). A resource group's resources are taken in name order (Kueue's map order is
random: when two groups fail, which one it reports may differ). Topology placement, partial
admission and admission checks are not evaluated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.assignment import (
    _BEST,
    _WORST,
    Assignment,
    ClusterQueueSnapshot,
    FlavorAssignment,
    FlavorAttempt,
    GranularMode,
    Mode,
    Oracle,
    OracleAnswer,
    PodSetAssignment,
    Possibility,
    PreemptionMode,
    QuotaCheck,
    is_preferred,
    most_severe_reason,
    policy_oracle,
    reason_severity,
    should_try_next_flavor,
)
from podwhy.cluster.kueue.flavormatch import Status, check_flavor, explicitly_requests_tas
from podwhy.cluster.kueue.requests import PodSetRequests
from podwhy.cluster.kueue.resourcenode import height_of_lowest_subtree_that_fits
from podwhy.cluster.kueue.resources import (
    DEFAULT_FORMATTER,
    FlavorResource,
    ResourceFormatter,
    add_int,
    request_order,
    saturating_add,
    sub,
)
from podwhy.helpers.podresources import pod_requests
from podwhy.model import objects as o


class AssignOptions(msgspec.Struct, frozen=True):
    """The scheduler's and Kueue's configuration the assigner reads."""

    oracle: Oracle = policy_oracle
    fair_sharing: bool = False  # Configuration.fairSharing (not emulated beyond this switch)
    formatter: ResourceFormatter = DEFAULT_FORMATTER
    gates: Mapping[str, bool] | None = None
    # Configuration.resources.quotaCheckStrategy IgnoreUndeclared (default BlockUndeclared).
    ignore_undeclared: bool = False

    def enabled(self, gate: str) -> bool:
        return names.enabled(gate, dict(self.gates) if self.gates is not None else None)


_PODS = names.PODS


class FlavorAssigner:
    """flavorassigner.FlavorAssigner for one Workload in one ClusterQueue."""

    def __init__(
        self,
        workload: o.KueueWorkload,
        requests: Sequence[PodSetRequests],
        cq: ClusterQueueSnapshot,
        flavors: Mapping[str, o.ResourceFlavor],
        options: AssignOptions | None = None,
    ) -> None:
        self.workload = workload
        self.requests = list(requests)
        self.cq = cq
        self.flavors = flavors
        self.options = options or AssignOptions()
        # hasOverlapWithPodRequestedResources reads what each pod asks for, as written.
        self._checks: list[QuotaCheck] = []
        self._requested = [
            frozenset(pod_requests(o.Pod(spec=ps.template.spec), use_status_resources=False))
            for ps in workload.spec.pod_sets
        ]

    # ------------------------------------------------------------ assignFlavors

    def assign(self, counts: Sequence[int] | None = None) -> Assignment:
        """assignFlavors: each pod set group's flavors, stopping at the first group that fails."""
        self._checks = []
        reqs = (
            self.requests if counts is None else [ps.scaled_to(c) for ps, c in zip(self.requests, counts, strict=True)]
        )
        assignment = Assignment()
        covers_pods = self.cq.rg_by_resource(_PODS) is not None
        per_pod_set: list[dict[str, int]] = []
        groups: dict[str, list[int]] = {}
        for i, ps in enumerate(reqs):
            requests = dict(ps.requests)
            if covers_pods:
                requests[_PODS] = ps.count
            per_pod_set.append(requests)
            tr = self.workload.spec.pod_sets[i].topology_request
            key = tr.pod_set_group_name if tr is not None and tr.pod_set_group_name is not None else str(i)
            groups.setdefault(key, []).append(i)
        for ids in groups.values():
            if self._assign_group(assignment, ids, reqs, per_pod_set):
                return self._finish(assignment)
        if assignment.representative_mode() is not Mode.NO_FIT and self._requests_tas():
            assignment.not_evaluated.append(names.NOT_EMULATED_TAS)
        return self._finish(assignment)

    def _requests_tas(self) -> bool:
        return self.options.enabled(names.TOPOLOGY_AWARE_SCHEDULING) and (
            any(explicitly_requests_tas(ps) for ps in self.workload.spec.pod_sets) or self.cq.tas.tas_only
        )

    def _finish(self, assignment: Assignment) -> Assignment:
        assignment.checks = self._checks
        if self.options.enabled(names.UNADMITTED_WORKLOADS_OBSERVABILITY):
            resolve_no_fit_reason(assignment, self.cq)
        if any(c.preemption is not None and not c.preemption.evaluated for c in assignment.checks):
            assignment.not_evaluated.append(names.NOT_EMULATED_PREEMPTION)
        return assignment

    def _assign_group(
        self, assignment: Assignment, ids: list[int], reqs: Sequence[PodSetRequests], per_pod_set: list[dict[str, int]]
    ) -> bool:
        """One pod set group: its resources' flavors; whether a pod set of it got none."""
        requests: dict[str, int] = {}
        for i in ids:
            for res, q in per_pod_set[i].items():
                requests[res] = saturating_add(requests.get(res, 0), q)
        considered: dict[str, FlavorAttempt] = {}
        group_flavors: dict[str, FlavorAssignment] | None = {}
        group_status = Status()
        vectorized = self.options.enabled(names.VECTORIZED_RESOURCE_REQUESTS)
        for res in request_order(requests, vectorized):
            if self.cq.rg_by_resource(res) is None and (requests[res] == 0 or self.options.ignore_undeclared):
                continue
            if group_flavors is not None and res in group_flavors:
                continue
            flavors, status, attempts = self._find_flavor(ids, requests, res, assignment.usage)
            self._merge_attempts_for_resource(considered, attempts, res)
            if (status is not None and status.is_error()) or not flavors:
                group_flavors = None
                group_status = status if status is not None else Status()
                break
            assert group_flavors is not None
            group_flavors.update(flavors)
            if status is not None:
                group_status.reasons.extend(status.reasons)
        final = sorted(considered.values(), key=lambda a: a.flavor)
        failed = False
        for i in ids:
            flavors = self._resolve_pod_set_flavors(i, per_pod_set[i], group_flavors or {})
            status = Status(list(group_status.reasons), group_status.err, group_status.no_fit_reason)
            psa = PodSetAssignment(reqs[i].name, flavors, status, per_pod_set[i], reqs[i].count, final)
            self._append(assignment, psa)
            if status.is_error() or (per_pod_set[i] and not flavors):
                failed = True
        return failed

    def _resolve_pod_set_flavors(
        self, i: int, requests: dict[str, int], group_flavors: dict[str, FlavorAssignment]
    ) -> dict[str, FlavorAssignment]:
        """resolvePodSetFlavors: the group's flavors of the resources this pod set requests; a pod
        set requesting none in a topology group keeps the group's TAS flavors."""
        if requests:
            return {res: fa for res, fa in group_flavors.items() if res in requests}
        tr = self.workload.spec.pod_sets[i].topology_request
        if tr is not None and tr.pod_set_group_name is not None:
            return {res: fa for res, fa in group_flavors.items() if fa.name in self.cq.tas.flavors}
        return {}

    @staticmethod
    def _append(assignment: Assignment, psa: PodSetAssignment) -> None:
        """Assignment.append: the pod set's usage by flavor, and the borrowing level."""
        assignment.pod_sets.append(psa)
        for res, fa in psa.flavors.items():
            assignment.borrowing = max(assignment.borrowing, fa.borrow)
            fr = FlavorResource(fa.name, res)
            assignment.usage[fr] = add_int(assignment.usage.get(fr, 0), psa.requests.get(res, 0))

    # ------------------------------------------------------------ findFlavorForPodSets

    def _find_flavor(
        self, ids: list[int], requests: dict[str, int], res: str, usage: dict[FlavorResource, int]
    ) -> tuple[dict[str, FlavorAssignment], Status | None, list[FlavorAttempt]]:
        """findFlavorForPodSets: the flavor of RES's resource group that holds the group's
        requests of all the group's resources, tried in order under the fungibility policy."""
        rg = self.cq.rg_by_resource(res)
        if rg is None:
            return {}, Status([names.MSG_RESOURCE_UNAVAILABLE.format(res)]), []
        status = Status()
        vectorized = self.options.enabled(names.VECTORIZED_RESOURCE_REQUESTS)
        covered = {r: requests[r] for r in request_order(requests, vectorized) if r in rg.covered}
        pod_sets = [self.workload.spec.pod_sets[i] for i in ids]
        requested = [self._requested[i] for i in ids]
        granular_on = self.options.enabled(names.UNADMITTED_WORKLOADS_OBSERVABILITY)
        fungibility = self.cq.fungibility
        best: dict[str, FlavorAssignment] | None = None
        best_mode = _WORST
        attempts: list[FlavorAttempt] = []
        attempted = -1
        for idx, fname in enumerate(rg.flavors):
            attempted = idx
            check = check_flavor(
                fname, self.flavors.get(fname), pod_sets, rg.covered, self.cq.tas, requested, self.options.gates
            )
            if not check.is_fit():
                status.reasons.extend(check.reasons)
                reason = names.NO_MATCHING_FLAVOR if granular_on else ""
                attempts.append(FlavorAttempt(fname, Mode.NO_FIT, reasons=list(check.reasons), no_fit_reason=reason))
                continue
            assignments, mode, max_borrow, reasons, no_fit = self._fit_flavor(ids, fname, covered, usage, status)
            possibility = Possibility(mode.mode - 1) if mode.mode in _POSSIBLE else None
            attempts.append(
                FlavorAttempt(
                    fname,
                    mode.mode.assignment_mode(),
                    max_borrow,
                    possibility,
                    sorted(reasons),
                    no_fit if granular_on else "",
                )
            )
            if not should_try_next_flavor(mode, fungibility):
                best, best_mode = assignments, mode
                break
            if is_preferred(mode, best_mode, fungibility):
                best, best_mode = assignments, mode
        for fa in (best or {}).values():
            fa.tried_flavor_idx = -1 if attempted == len(rg.flavors) - 1 else attempted
        if best_mode.mode is PreemptionMode.FIT:
            return best or {}, None, attempts
        return best or {}, status, attempts

    def _fit_flavor(
        self, ids: list[int], fname: str, covered: dict[str, int], usage: dict[FlavorResource, int], status: Status
    ) -> tuple[dict[str, FlavorAssignment], GranularMode, int, list[str], str]:
        """One flavor's quota for each covered resource; its worst mode across them."""
        assignments: dict[str, FlavorAssignment] = {}
        mode = _BEST
        max_borrow = 0
        reasons: list[str] = []
        no_fit = ""
        for res, val in covered.items():
            fr = FlavorResource(fname, res)
            pmode, borrow, s = self._fits_quota(ids, fr, usage.get(fr, 0), val)
            if s is not None:
                reasons.extend(s.reasons)
                status.reasons.extend(s.reasons)
                no_fit = most_severe_reason(no_fit, s.no_fit_reason)
            max_borrow = max(max_borrow, borrow)
            candidate = GranularMode(pmode, borrow)
            if is_preferred(mode, candidate, self.cq.fungibility):
                mode = candidate
            if mode.mode is PreemptionMode.NO_FIT:
                continue
            assignments[res] = FlavorAssignment(fname, pmode.assignment_mode(), borrow=borrow)
        return assignments, mode, max_borrow, reasons, no_fit

    # ------------------------------------------------------------ fitsResourceQuota

    def _fits_quota(
        self, ids: list[int], fr: FlavorResource, assumed: int, request: int
    ) -> tuple[PreemptionMode, int, Status | None]:
        """fitsResourceQuota: NoFit past the maximum capacity; Fit within what is available;
        else what preemption could do (when the nominal quota holds it, reclaim is possible in
        the hierarchy, or the ClusterQueue may preempt while borrowing), or NoFit."""
        cq, fmt = self.cq, self.options.formatter
        avail = cq.available(fr)
        max_capacity = cq.potential_available(fr)
        val = add_int(assumed, request)
        numbers = (assumed, request, val, avail, max_capacity)

        def record(mode: PreemptionMode, borrow: int, answer: OracleAnswer | None = None) -> None:
            self._record(ids, fr, numbers, mode, borrow, answer)

        if val > max_capacity:
            message = names.MSG_EXCEEDS_MAX.format(
                fr.resource,
                fr.flavor,
                fmt.amount_string(fr.resource, assumed),
                fmt.quantity_string(fr.resource, request),
                fmt.amount_string(fr.resource, max_capacity),
            )
            record(PreemptionMode.NO_FIT, 0)
            return PreemptionMode.NO_FIT, 0, Status([message], no_fit_reason=names.EXCEEDS_MAX_QUOTA)
        borrow, may_reclaim = height_of_lowest_subtree_that_fits(cq.node, fr, val)
        if val <= avail:
            record(PreemptionMode.FIT, borrow)
            return PreemptionMode.FIT, borrow, None
        message = names.MSG_INSUFFICIENT_UNUSED.format(
            fr.resource, fr.flavor, fmt.amount_string(fr.resource, sub(val, avail))
        )
        status = Status([message], no_fit_reason=names.WAITING_FOR_QUOTA)
        if cq.quota(fr).nominal >= val or may_reclaim or self._can_preempt_while_borrowing():
            answer = self.options.oracle(cq, fr, val)
            mode = answer.possibility.mode()
            status.no_fit_reason = ""
            record(mode, answer.borrow, answer)
            return mode, answer.borrow, status
        record(PreemptionMode.NO_FIT, borrow)
        return PreemptionMode.NO_FIT, borrow, status

    def _record(
        self,
        ids: list[int],
        fr: FlavorResource,
        numbers: tuple[int, int, int, int, int],
        mode: PreemptionMode,
        borrow: int,
        answer: OracleAnswer | None,
    ) -> None:
        """One fitsResourceQuota's facts (NUMBERS: assumed, request, needed, available, maximum)."""
        assumed, request, needed, avail, max_capacity = numbers
        quota = self.cq.quota(fr)
        used = self.cq.used(fr)
        own_left = max(0, sub(quota.nominal, used))
        pod_sets = tuple(self.workload.spec.pod_sets[i].name for i in ids)
        self._checks.append(
            QuotaCheck(
                pod_sets,
                fr.flavor,
                fr.resource,
                assumed,
                request,
                needed,
                quota.nominal,
                quota.borrowing_limit,
                quota.lending_limit,
                used,
                avail,
                max_capacity,
                max(0, sub(avail, own_left)),
                mode,
                borrow,
                answer,
            )
        )

    def _can_preempt_while_borrowing(self) -> bool:
        policy = self.cq.preemption
        bwc = policy.borrow_within_cohort
        return (bwc is not None and bwc.policy != names.PREEMPTION_NEVER) or (
            self.options.fair_sharing and policy.reclaim_within_cohort != names.PREEMPTION_NEVER
        )

    # ------------------------------------------------------------ attempts

    def _merge_attempts_for_resource(self, dst: dict[str, FlavorAttempt], src: list[FlavorAttempt], res: str) -> None:
        """mergeFlavorAttemptsForResource: a flavor of RES's group not tried for RES does not
        provide it."""
        granular_on = self.options.enabled(names.UNADMITTED_WORKLOADS_OBSERVABILITY)
        merge_attempts(dst, src, granular_on)
        if not src:
            return
        rg = self.cq.rg_by_resource(res)
        assert rg is not None
        present = {a.flavor for a in src}
        for flavor, attempt in dst.items():
            if flavor in rg.flavors and flavor not in present:
                attempt.mode = Mode.NO_FIT
                attempt.reasons = sorted(set(attempt.reasons) | {names.MSG_FLAVOR_NO_RESOURCE.format(flavor, res)})
                if granular_on:
                    attempt.no_fit_reason = names.NO_MATCHING_FLAVOR


_POSSIBLE = (PreemptionMode.NO_CANDIDATES, PreemptionMode.PREEMPT, PreemptionMode.RECLAIM)


def merge_attempts(dst: dict[str, FlavorAttempt], src: list[FlavorAttempt], granular_on: bool) -> None:
    """mergeFlavorAttempts: a flavor tried for several resources keeps its worst outcome."""
    for at in src:
        existing = dst.get(at.flavor)
        if existing is None:
            dst[at.flavor] = FlavorAttempt(
                at.flavor, at.mode, at.borrow, at.possibility, sorted(set(at.reasons)), at.no_fit_reason
            )
            continue
        possibility = existing.possibility
        if at.possibility is not None and (possibility is None or at.possibility < possibility):
            possibility = at.possibility
        dst[at.flavor] = FlavorAttempt(
            at.flavor,
            min(at.mode, existing.mode),
            max(at.borrow, existing.borrow),
            possibility,
            sorted(set(existing.reasons) | set(at.reasons)),
            most_severe_reason(existing.no_fit_reason, at.no_fit_reason) if granular_on else "",
        )


def resolve_no_fit_reason(assignment: Assignment, cq: ClusterQueueSnapshot) -> None:
    """resolveNoFitReason: per pod set, the least severe reason among a resource group's
    flavors (alternatives), the most severe across groups (all are needed) and pod sets."""
    if assignment.representative_mode() is not Mode.NO_FIT:
        return
    overall = ""
    for ps in assignment.pod_sets:
        if ps.representative_mode() is not Mode.NO_FIT:
            continue
        if not ps.attempts:
            overall = most_severe_reason(overall, names.NO_MATCHING_FLAVOR)
            continue
        by_group: dict[int, str] = {}
        for i, att in enumerate(ps.attempts):
            if att.mode is not Mode.NO_FIT:
                continue
            indices = [g for g, rg in enumerate(cq.resource_groups) if att.flavor in rg.flavors] or [-1 - i]
            for g in indices:
                if g not in by_group or reason_severity(att.no_fit_reason) < reason_severity(by_group[g]):
                    by_group[g] = att.no_fit_reason
        reason = ""
        for r in by_group.values():
            reason = most_severe_reason(reason, r)
        overall = most_severe_reason(overall, reason)
    assignment.no_fit_reason = overall
