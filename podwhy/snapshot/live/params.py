"""Live (and `podwhy snapshot`): the ValidatingAdmissionPolicies' params, fetched once the
policies and their bindings are (docs/policies.md, "Params"). Only what a binding's paramRef can
select is asked for, with GET requests only: the object a paramRef names (in its namespace, or
in every namespace by `fieldSelector=metadata.name=NAME` when the request's namespace decides),
or the list its selector selects (`labelSelector`, in its namespace or every one). The paramKind's
resource is found as the API server's RESTMapper finds it: ConfigMaps are the core group's
`configmaps`; a custom kind's by discovery of its group and version (not served: the policy's
configuration error, said by cluster/apiserver/admission/policy/params.py). A list or get that
fails (403 where podwhy may not read ConfigMaps) leaves that paramKind's params not evaluated, with
the server's words (snapshot/params.py FetchedKind.missing), never a guess.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import msgspec

from podwhy.model import objects as o
from podwhy.snapshot.live.errors import HttpError
from podwhy.snapshot.params import CONFIG_MAP, FetchedKind, is_custom_group, param_kind_key, read_param
from podwhy.snapshot.resources import FORBIDDEN, Resource
from podwhy.snapshot.typed import decode_typed

CONFIG_MAPS = Resource(CONFIG_MAP, "v1", "configmaps")


class ParamsClient(Protocol):
    """What fetching params needs of the live source (live/source.py LiveSource)."""

    def get(self, path: str, query: Iterable[tuple[str, str]] = ()) -> bytes: ...

    def list_raw(
        self, resource: Resource, namespace: str | None, field_selector: str, label_selector: str
    ) -> list[Any]: ...

    def get_raw(self, resource: Resource) -> list[Any]: ...


class ParamFetch(msgspec.Struct):
    """What was fetched of the policies' params: each object (kind, apiVersion, its JSON as the
    server sent it, a list item without kind or apiVersion), and what was learnt of each paramKind
    (by snapshot/params.py param_kind_key)."""

    objects: list[tuple[str, str, bytes]] = msgspec.field(default_factory=list)
    kinds: dict[str, FetchedKind] = msgspec.field(default_factory=dict)


def policies_fetched(out: Mapping[Resource, list[Any] | str]) -> tuple[list[Any], list[Any]]:
    """The Validating- and MutatingAdmissionPolicies and their bindings a fetch holds, typed (none
    where it could not list them)."""

    def items(kind: str, tp: type[Any]) -> list[Any]:
        return _typed([x for r, v in out.items() if r.kind == kind and not isinstance(v, str) for x in v], tp)

    policies = items("ValidatingAdmissionPolicy", o.ValidatingAdmissionPolicy)
    bindings = items("ValidatingAdmissionPolicyBinding", o.ValidatingAdmissionPolicyBinding)
    policies += items("MutatingAdmissionPolicy", o.MutatingAdmissionPolicy)
    bindings += items("MutatingAdmissionPolicyBinding", o.MutatingAdmissionPolicyBinding)
    return policies, bindings


def _typed(items: Iterable[Any], tp: type[Any]) -> list[Any]:
    """The policies or bindings of a fetch, typed (a raw fetch holds their JSON)."""
    decoder = msgspec.json.Decoder(tp)
    out = []
    for item in items:
        if isinstance(item, msgspec.Raw):
            try:
                item = decode_typed(decoder, item)
            except msgspec.MsgspecError:
                continue
        out.append(item)
    return out


def wanted(policies: Iterable[Any], bindings: Iterable[Any]) -> dict[tuple[str, str], list[o.ParamRef]]:
    """The paramRefs of the bindings of policies with a paramKind, by (apiVersion, kind): a
    ValidatingAdmissionPolicyBinding names a ValidatingAdmissionPolicy, a MutatingAdmissionPolicyBinding
    a MutatingAdmissionPolicy (raw items are read as the former)."""
    typed = {
        (isinstance(p, o.MutatingAdmissionPolicy), p.metadata.name): p
        for p in _typed(policies, o.ValidatingAdmissionPolicy)
    }
    out: dict[tuple[str, str], list[o.ParamRef]] = {}
    for binding in _typed(bindings, o.ValidatingAdmissionPolicyBinding):
        policy = typed.get((isinstance(binding, o.MutatingAdmissionPolicyBinding), binding.spec.policy_name))
        ref = binding.spec.param_ref
        if policy is None or policy.spec.param_kind is None or ref is None:
            continue
        kind = policy.spec.param_kind
        out.setdefault((kind.api_version, kind.kind), []).append(ref)
    return out


class _APIResource(msgspec.Struct):
    name: str = ""
    namespaced: bool = False
    kind: str = ""


class _APIResourceList(msgspec.Struct):
    resources: list[_APIResource] = []


_RESOURCES = msgspec.json.Decoder(_APIResourceList)


def _resource(client: ParamsClient, api_version: str, kind: str) -> tuple[Resource, bool] | FetchedKind | None:
    """The paramKind's resource and whether it is namespaced; FetchedKind when the server does not
    serve it (or discovery fails); None for a kind podwhy does not read as params."""
    if api_version.count("/") > 1:
        return None  # calculatePolicyData leaves the policy out
    group = api_version.rpartition("/")[0]
    if api_version == "v1" and kind == CONFIG_MAP:
        return CONFIG_MAPS, True
    if not is_custom_group(group) or o.table_kind(kind, api_version) in o.KINDS:
        return None
    try:
        found = _RESOURCES.decode(client.get(f"/apis/{api_version}"))
    except HttpError as exc:
        if exc.status == 404:
            return FetchedKind(served=False)
        return FetchedKind(served=True, missing=f"cannot discover {api_version}: {exc.message}")
    except msgspec.DecodeError as exc:
        return FetchedKind(served=True, missing=f"cannot discover {api_version}: {exc}")
    for resource in found.resources:
        if resource.kind == kind and "/" not in resource.name:
            return Resource(kind, api_version, resource.name), resource.namespaced
    return FetchedKind(served=False)


def label_selector_query(selector: o.LabelSelector) -> str | None:
    """SELECTOR as a `labelSelector` query ("" selects everything); None for one the API server
    would refuse to parse (the binding's configuration error: nothing to fetch)."""
    parts = [f"{key}={value}" for key, value in selector.match_labels.items()]
    for expr in selector.match_expressions:
        values = ",".join(expr.values)
        if expr.operator == "In" and expr.values:
            parts.append(f"{expr.key} in ({values})")
        elif expr.operator == "NotIn" and expr.values:
            parts.append(f"{expr.key} notin ({values})")
        elif expr.operator == "Exists" and not expr.values:
            parts.append(expr.key)
        elif expr.operator == "DoesNotExist" and not expr.values:
            parts.append(f"!{expr.key}")
        else:
            return None
    return ",".join(parts)


# One request for params: (namespace, or None for every namespace; the name got; the label selector).
_Request = tuple[str | None, str, str]


def _requests(namespaced: bool, refs: Iterable[o.ParamRef]) -> list[_Request]:
    """What to ask for to hold every object REFS can select (those whose lookup is a configuration
    error whatever the server holds are left out)."""
    out: dict[_Request, None] = {}
    for ref in refs:
        if bool(ref.name) == (ref.selector is not None) or (ref.namespace and not namespaced):
            continue
        namespace = (ref.namespace or None) if namespaced else None
        if ref.name:
            out[(namespace, ref.name, "")] = None
            continue
        assert ref.selector is not None
        query = label_selector_query(ref.selector)
        if query is not None:
            out[(namespace, "", query)] = None
    return list(out)


def _fetch(client: ParamsClient, resource: Resource, request: _Request) -> list[Any]:
    namespace, name, selector = request
    if name and namespace is not None:
        try:
            return client.get_raw(Resource(resource.kind, resource.group_version, resource.plural, namespace, name))
        except HttpError as exc:
            if exc.status == 404:
                return []  # no such object
            raise
    field_selector = f"metadata.name={name}" if name else ""
    return client.list_raw(resource, namespace, field_selector, selector)


def _once(objects: list[tuple[str, str, bytes]]) -> list[tuple[str, str, bytes]]:
    """OBJECTS, each once (a name asked for in its namespace and in every one is answered twice)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for kind, api_version, raw in objects:
        param = read_param(kind, api_version, raw)
        if param is not None and (param.namespace, param.name) not in seen:
            seen.add((param.namespace, param.name))
            out.append((kind, api_version, raw))
    return out


def _failed(resource: Resource, request: _Request, exc: HttpError) -> str:
    """Why a paramKind's params could not be read, as a kind missing from a live snapshot is said."""
    namespace, name, _ = request
    if name and namespace is not None:
        what = Resource(resource.kind, resource.group_version, resource.plural, namespace, name).display
        verb = "get"
    else:
        what, verb = resource.display, "list"
    return f"cannot {verb} {what}" + (FORBIDDEN if exc.status == 403 else f": {exc.message}")


def fetch_params(client: ParamsClient, policies: Iterable[Any], bindings: Iterable[Any]) -> ParamFetch:
    """Every object the bindings' paramRefs can select, and what was learnt of each paramKind."""
    out = ParamFetch()
    for (api_version, kind), refs in sorted(wanted(policies, bindings).items()):
        key = param_kind_key(api_version, kind)
        found = _resource(client, api_version, kind)
        if found is None:
            continue
        if isinstance(found, FetchedKind):
            out.kinds[key] = found
            continue
        resource, namespaced = found
        objects: list[tuple[str, str, bytes]] = []
        failed = ""
        for request in _requests(namespaced, refs):
            try:
                objects += [(kind, api_version, bytes(raw)) for raw in _fetch(client, resource, request)]
            except HttpError as exc:
                failed = _failed(resource, request, exc)
                break
        if failed:
            out.kinds[key] = FetchedKind(True, namespaced, missing=failed)
            continue
        out.kinds[key] = FetchedKind(True, namespaced)
        out.objects += _once(objects)
    return out
