"""The warnings about what loading the inputs met: objects given twice, files given twice,
documents without a kind. Summarised, so that a dump given twice is a line, not a page."""

from __future__ import annotations

from podwhy.report.words.admission import params_not_read_warnings
from podwhy.snapshot.cluster import Duplicate, ObjectKey, Snapshot

# Objects given twice that a warning names one by one; beyond, it counts them.
NAMED_REPEATS = 3
# Objects whose versions differ, each named with the version read; beyond, counted.
NAMED_DIFFERENCES = 10
# Documents without a kind named one by one; beyond, counted.
NAMED_KINDLESS = 5
# Pods the API server would not store, named with its words; beyond, counted.
NAMED_UNSTORABLE = 3


def object_name(key: ObjectKey) -> str:
    """An object as podwhy's reports name owners: "namespace/name (Kind)", "name (Node)" when cluster-scoped."""
    kind, namespace, name = key
    return f"{namespace}/{name} ({kind})" if namespace else f"{name} ({kind})"


def api_server_warnings(snapshot: Snapshot) -> list[str]:
    """The API server's warnings on creating the manifests' objects, each as kubectl prints it
    (`Warning: ...`, the server's words), then the object it came with."""
    return [f"Warning: {text} (the API server, creating {what})" for what, text in snapshot.api_warnings]


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _times(count: int) -> str:
    return "twice" if count == 2 else f"{count} times"


def _repeat_warning(sources: tuple[str, ...], keys: list[ObjectKey]) -> str:
    inputs = list(dict.fromkeys(sources))
    where = f"{_times(len(sources))} in {inputs[0]}" if len(inputs) == 1 else f"in {_names(inputs)}"
    if len(keys) == 1:
        return f"{object_name(keys[0])} was given {where}: taken once"
    if len(keys) <= NAMED_REPEATS:
        return f"{_names([object_name(k) for k in keys])} were given {where}: each taken once"
    return f"{len(keys):,} objects were given {where}: each taken once"


def _repeats(snapshot: Snapshot) -> list[str]:
    """Objects given more than once, identical: grouped by the inputs that held them."""
    sources: dict[ObjectKey, list[str]] = {}
    for key, first, again in snapshot.repeats:
        sources.setdefault(key, [first]).append(again)
    by_inputs: dict[tuple[str, ...], list[ObjectKey]] = {}
    for key, inputs in sources.items():
        by_inputs.setdefault(tuple(inputs), []).append(key)
    return [_repeat_warning(inputs, keys) for inputs, keys in by_inputs.items()]


def _version(version: str) -> str:
    return f"resourceVersion {version}" if version else "no resourceVersion"


def _difference_warning(dup: Duplicate) -> str:
    name = object_name(dup.key)
    kept, version = (dup.second, dup.second_version) if dup.kept_second else (dup.first, dup.first_version)
    by_version = (
        dup.first_version.isdigit() and dup.second_version.isdigit() and dup.first_version != dup.second_version
    )
    if dup.first == dup.second:
        versions = f"resourceVersions {dup.first_version or '(none)'} and {dup.second_version or '(none)'}"
        head = f"{name} is given twice in {dup.first}, in two versions ({versions})"
        taken = f"the newer ({version})" if by_version else "the later one"
    else:
        head = (
            f"{name} differs between {dup.first} ({_version(dup.first_version)}) "
            f"and {dup.second} ({_version(dup.second_version)})"
        )
        taken = f"the newer, of {kept}," if by_version else f"the one given later, of {kept},"
    return f"{head}: {taken} is taken"


def _unstorable(snapshot: Snapshot) -> list[str]:
    """Pods this release's API server would not store as they are: said with its words, since the
    verdict is what kube-scheduler does with the pod as given, not what a cluster could hold."""
    refused = list(snapshot.unstorable.items())
    if not refused:
        return []
    named = "; ".join(words for _, words in refused[:NAMED_UNSTORABLE])
    more = len(refused) - NAMED_UNSTORABLE
    pods = "a pod" if len(refused) == 1 else f"{len(refused):,} pods"
    return [
        f"{pods} of the snapshot the emulated release's API server would not store as given ({named}"
        + (f"; and {more:,} more" if more > 0 else "")
        + "): stored under an older release's rules, or a dump written without an API server;"
        " podwhy schedules them as given, as kube-scheduler would"
    ]


def input_warnings(snapshot: Snapshot) -> list[str]:
    """What the inputs held twice or could not hold, in the order met."""
    out: list[str] = []
    rereads: dict[tuple[str, str, bool, bool], list[str]] = {}
    for reread in snapshot.rereads:
        key = (reread.first, reread.second, reread.first_folder, reread.second_folder)
        rereads.setdefault(key, []).append(reread.path)
    for (first, second, first_folder, second_folder), paths in rereads.items():
        if first == second:
            out.append(f"{first} was given twice: read once")
        else:
            files = paths[0] if len(paths) == 1 else f"{len(paths):,} files"
            given = [
                f"in {arg}" if folder else f"as {arg}"
                for arg, folder in ((first, first_folder), (second, second_folder))
            ]
            out.append(f"{files} given {given[0]} and again {given[1]}: read once")
    out.extend(_repeats(snapshot))
    differences = snapshot.duplicates
    out.extend(_difference_warning(dup) for dup in differences[:NAMED_DIFFERENCES])
    if len(differences) > NAMED_DIFFERENCES:
        out.append(
            f"{len(differences) - NAMED_DIFFERENCES:,} more objects differ between the inputs: "
            "of each, the newer (else the one given later) is taken"
        )
    out.extend(_unstorable(snapshot))
    out.extend(params_not_read_warnings(snapshot.params.fetched))
    kindless = snapshot.kindless
    if kindless:
        named = [f"{source}: {where}" for source, where in kindless[:NAMED_KINDLESS]]
        more = len(kindless) - len(named)
        noun = "a document" if len(kindless) == 1 else f"{len(kindless):,} documents"
        out.append(
            f"{noun} without a kind skipped (not Kubernetes objects): {'; '.join(named)}"
            + (f" and {more:,} more" if more else "")
        )
    return out
