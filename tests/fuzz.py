"""Fuzzing podwhy's command line with malformed dumps.

    python -m tests.fuzz --count 10000 [--seed N] [--out DIR]
    python -m tests.fuzz --seed N --case I        # replay one case

Each case takes one of the bundled dumps (the example cluster and a few recorded clusters),
breaks it in one to three ways, writes it as YAML or JSON (sometimes gzipped) and runs
`podwhy explain POD --from FILE -o json` in-process. Whatever the input, podwhy must:
- never print a traceback or an "internal error";
- exit 0 or 1 with a report on stdout that validates against the schema (and whose verdict
  has that exit code), or
- exit 2 or 3 with nothing on stdout and exactly one line on stderr; exit 3 may instead carry
  a report whose verdict is Inconclusive or Error.

Mutations: wrong types in every field the typed model reads (paths taken from the model
itself), truncated or corrupted bytes, huge numbers, invalid quantities, unknown kinds,
duplicate objects, dangling references and removed fields. Every case derives its own random
generator from (seed, case), so any case replays alone. A violation is saved (input and
outputs) under --out and makes the run exit 1.
"""

from __future__ import annotations

import argparse
import copy
import gc
import gzip
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

import jsonschema
import msgspec
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.model.objects import KIND_TYPES
from podwhy.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "podwhy" / "report" / "schema.json"

# (dump, pod): the example cluster and recorded clusters with preemption, volumes, CSI limits,
# dynamic resources, nominated pods, spreading policies and pods that fit several nodes (so the
# Score plugins run over the broken objects too), kept small so cases run fast. "" takes the pod
# from the recording's case.json.
BASES: tuple[tuple[str, str], ...] = (
    ("fixtures/examples/shop-cluster.yaml", "shop/checkout-7c9d8b6f5-m4x2q"),
    ("fixtures/golden/u0261/cluster.yaml", ""),
    ("fixtures/golden/u0252/cluster.yaml", ""),
    ("fixtures/golden/u0258/cluster.yaml", ""),
    ("fixtures/golden/g0003/cluster.yaml", ""),
    ("fixtures/golden/g0051/cluster.yaml", ""),
    ("fixtures/golden/g0366/cluster.yaml", ""),
    ("fixtures/golden/g0450/cluster.yaml", ""),
    ("fixtures/golden/g0471/cluster.yaml", ""),
    # Schedulable on several nodes: scored.
    ("fixtures/golden/u0240/cluster.yaml", ""),
    ("fixtures/golden/u0072/cluster.yaml", ""),
    ("fixtures/golden/u0180/cluster.yaml", ""),
    ("fixtures/golden/u0027/cluster.yaml", ""),
    ("fixtures/golden/g0453/cluster.yaml", ""),
    ("fixtures/golden/g0363/cluster.yaml", ""),
)

CASE_SECONDS = 30
GHOST = "ghost-object"

Json = dict[str, Any]
# A path into an object: field names, LIST (some element) and MAP (some value).
LIST = "[]"
MAP = "{}"
FieldPath = tuple[str, ...]


# ---------------------------------------------------------------------- the model's fields


@dataclass(frozen=True)
class Leaf:
    path: FieldPath
    kind: str  # str, int, bool, float, quantity, struct, list, map, any


def _classify(tp: msgspec.inspect.Type) -> tuple[str, msgspec.inspect.Type]:
    """The kind of a field's type, with Optional unwrapped."""
    if isinstance(tp, msgspec.inspect.UnionType):
        members = [t for t in tp.types if not isinstance(t, msgspec.inspect.NoneType)]
        names = {type(t).__name__ for t in members}
        if {"StrType", "IntType", "FloatType"} <= names:
            return "quantity", tp
        if len(members) == 1:
            return _classify(members[0])
        return "union", tp
    return {
        msgspec.inspect.StrType: "str",
        msgspec.inspect.IntType: "int",
        msgspec.inspect.BoolType: "bool",
        msgspec.inspect.FloatType: "float",
        msgspec.inspect.StructType: "struct",
        msgspec.inspect.ListType: "list",
        msgspec.inspect.DictType: "map",
    }.get(type(tp), "any"), tp


def _walk(tp: msgspec.inspect.Type, path: FieldPath, depth: int) -> Iterator[Leaf]:
    kind, tp = _classify(tp)
    if path:
        yield Leaf(path, kind)
    if depth > 7:
        return
    if isinstance(tp, msgspec.inspect.StructType):
        for f in tp.fields:
            yield from _walk(f.type, (*path, f.encode_name), depth + 1)
    elif isinstance(tp, msgspec.inspect.ListType):
        yield from _walk(tp.item_type, (*path, LIST), depth + 1)
    elif isinstance(tp, msgspec.inspect.DictType):
        yield from _walk(tp.value_type, (*path, MAP), depth + 1)


@cache
def model_leaves(kind: str) -> tuple[Leaf, ...]:
    """Every field path of a kind's typed model (what the decoder reads)."""
    return tuple(_walk(msgspec.inspect.type_info(KIND_TYPES[kind]), (), 0))


# ---------------------------------------------------------------------- editing documents


def set_path(obj: Any, path: FieldPath, value: Any, rng: random.Random) -> None:
    """Set `path` in `obj` to `value`, creating (or replacing) the containers on the way."""
    cur = obj
    for i, step in enumerate(path):
        last = i == len(path) - 1
        nxt: Any = [] if not last and path[i + 1] == LIST else {}
        if step == LIST:
            if not cur:
                cur.append(nxt)
            index = rng.randrange(len(cur))
            if last:
                cur[index] = value
                return
            if not isinstance(cur[index], type(nxt)):
                cur[index] = nxt
            cur = cur[index]
            continue
        key = step
        if step == MAP:
            key = rng.choice(sorted(cur)) if cur and rng.random() < 0.8 else "example.com/fuzz"
        if last:
            cur[key] = value
            return
        if not isinstance(cur.get(key), type(nxt)):
            cur[key] = nxt
        cur = cur[key]


def items_of(doc: Json) -> list[Json]:
    items = doc.get("items")
    return items if isinstance(items, list) else []


def pick_object(doc: Json, rng: random.Random, target: str, kinds: tuple[str, ...] = ()) -> Json | None:
    """An object of the dump, the pod to explain half of the time."""
    objects = [o for o in items_of(doc) if isinstance(o, dict) and (not kinds or o.get("kind") in kinds)]
    if not objects:
        return None
    namespace, _, name = target.partition("/")
    mine = [
        o
        for o in objects
        if o.get("kind") == "Pod"
        and isinstance(o.get("metadata"), dict)
        and o["metadata"].get("name") == name
        and o["metadata"].get("namespace") == namespace
    ]
    if mine and rng.random() < 0.5:
        return mine[0]
    return rng.choice(objects)


def _leaves(obj: Json, wanted: tuple[str, ...]) -> list[Leaf]:
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in KIND_TYPES:
        return []
    return [leaf for leaf in model_leaves(kind) if leaf.kind in wanted]


WRONG_VALUES: dict[str, tuple[Any, ...]] = {
    "str": (42, -1, 3.5, True, None, [], {}, ["a"], {"a": "b"}),
    "int": ("12", "abc", 1.5, True, None, [], {}, [1], {"a": 1}),
    "float": ("1.5", True, None, [], {}),
    "bool": ("true", "yes", 1, 0, None, [], {}, "False"),
    "quantity": (True, False, None, [], {}, ["1"], {"cpu": "1"}),
    "struct": ([], "a", 5, 2.5, True, [{}], None),
    "list": ({}, "a", 5, True, [None], [5], [[]], [{"a": [1]}]),
    "map": ([], "a", 5, True, {"k": [1]}, {"k": {"x": 1}}, {"k": None}),
    "union": (True, [], {}, None, 2.5),
    "any": (None, [], {}, 1, "x"),
}
HUGE_NUMBERS: tuple[Any, ...] = (
    10**30,
    -(10**30),
    2**63,
    2**63 - 1,
    2**64,
    -(2**63) - 1,
    2**31,
    -(2**31) - 1,
    1e308,
    -1e308,
    1.7976931348623157e308,
    10**400,
)
HUGE_QUANTITIES: tuple[Any, ...] = (
    "1e999",
    "9" * 60,
    "99999999999999999999Ei",
    "-1e30",
    "1E",
    "8Ei",
    "9223372036854775808",
    "123456789012345678901234567890m",
    "1e-999",
    "0.0000000000000000000001",
    *HUGE_NUMBERS,
)
INVALID_QUANTITIES: tuple[str, ...] = (
    "abc",
    "1.2.3",
    "--1",
    "1Gii",
    "",
    " ",
    "1e",
    "Infinity",
    "NaN",
    "nan",
    "inf",
    "0x10",
    "1 Gi",
    "Mi",
    "1.5.Gi",
    "١",
    "1_000",
    "+-1",
    "1e+",
    "1ki",
    "1KB",
    ".",
    "1e3.5",
    "\x00",
)
# Strings of the right type with awkward content: control characters, markup, empties, length.
WEIRD_STRINGS: tuple[str, ...] = (
    "",
    "a\nb",
    "line one\nline two\n",
    "\r",
    "\t",
    "[bold]markup[/bold]",
    "\x1b[31mred",
    "x" * 300,
    "ünïcödé/名前",
    "../../etc/passwd",
    "%s%n{0}",
    " ",
    "-",
)
UNKNOWN_KINDS: tuple[Any, ...] = (
    "Pood",
    "pod",
    "",
    "Deployment",
    "v1/Pod",
    "List",
    "NodeList",
    " Pod",
    5,
    None,
    [],
    {},
)


def _wrong_type(doc: Json, rng: random.Random, target: str) -> str:
    obj = pick_object(doc, rng, target, tuple(KIND_TYPES))
    if obj is None:
        return "no object"
    leaves = _leaves(obj, tuple(WRONG_VALUES))
    if rng.random() < 0.05 or not leaves:
        key = rng.choice(("metadata", "spec", "status", "kind", "apiVersion"))
        obj[key] = rng.choice(WRONG_VALUES["struct"] + WRONG_VALUES["str"])
        return key
    leaf = rng.choice(leaves)
    set_path(obj, leaf.path, copy.deepcopy(rng.choice(WRONG_VALUES[leaf.kind])), rng)
    return "/".join(leaf.path)


def _weird_string(doc: Json, rng: random.Random, target: str) -> str:
    obj = pick_object(doc, rng, target, tuple(KIND_TYPES))
    if obj is None:
        return "no object"
    leaves = _leaves(obj, ("str",))
    if not leaves:
        return "no string"
    leaf = rng.choice(leaves)
    set_path(obj, leaf.path, rng.choice(WEIRD_STRINGS), rng)
    return "/".join(leaf.path)


def _number_kinds(rng: random.Random) -> tuple[str, ...]:
    """Nodes a third of the time: their allocatable resources feed every resource plugin."""
    return ("Node",) if rng.random() < 0.35 else tuple(KIND_TYPES)


def _huge_number(doc: Json, rng: random.Random, target: str) -> str:
    obj = pick_object(doc, rng, target, _number_kinds(rng))
    if obj is None:
        return "no object"
    leaves = _leaves(obj, ("int", "float", "quantity"))
    if not leaves:
        return "no number"
    leaf = rng.choice(leaves)
    pool = HUGE_QUANTITIES if leaf.kind == "quantity" else HUGE_NUMBERS
    set_path(obj, leaf.path, rng.choice(pool), rng)
    return "/".join(leaf.path)


def _invalid_quantity(doc: Json, rng: random.Random, target: str) -> str:
    obj = pick_object(doc, rng, target, _number_kinds(rng))
    if obj is None:
        return "no object"
    leaves = _leaves(obj, ("quantity",))
    if not leaves:
        return "no quantity"
    leaf = rng.choice(leaves)
    set_path(obj, leaf.path, rng.choice(INVALID_QUANTITIES), rng)
    return "/".join(leaf.path)


def _unknown_kind(doc: Json, rng: random.Random, target: str) -> str:
    choice = rng.random()
    if choice < 0.5:
        obj = pick_object(doc, rng, target)
        if obj is None:
            return "no object"
        obj["kind"] = copy.deepcopy(rng.choice(UNKNOWN_KINDS))
        return "changed"
    if choice < 0.8:
        items = doc.setdefault("items", [])
        if isinstance(items, list):
            kind = rng.choice([k for k in UNKNOWN_KINDS if isinstance(k, str)])
            items.insert(rng.randrange(len(items) + 1), {"apiVersion": "v1", "kind": kind, "metadata": {"name": "x"}})
        return "added"
    doc["kind"] = copy.deepcopy(rng.choice((*UNKNOWN_KINDS, "PodList", "NodeList", "ConfigMapList")))
    return "list kind"


def _duplicate(doc: Json, rng: random.Random, target: str) -> str:
    items = items_of(doc)
    obj = pick_object(doc, rng, target)
    if obj is None:
        return "no object"
    twin = copy.deepcopy(obj)
    if rng.random() < 0.5 and isinstance(twin.get("metadata"), dict):
        twin["metadata"]["uid"] = "uid-twin"
    if rng.random() < 0.3 and twin.get("kind") == "Pod" and isinstance(twin.get("spec"), dict):
        twin["spec"]["nodeName"] = GHOST
    items.insert(rng.randrange(len(items) + 1), twin)
    return str(obj.get("kind"))


# Fields that name other objects, per kind: (path, what it names).
REFERENCES: dict[str, tuple[FieldPath, ...]] = {
    "Pod": (
        ("spec", "nodeName"),
        ("status", "nominatedNodeName"),
        ("spec", "priorityClassName"),
        ("spec", "runtimeClassName"),
        ("spec", "schedulerName"),
        ("spec", "volumes", LIST, "persistentVolumeClaim", "claimName"),
        ("spec", "resourceClaims", LIST, "resourceClaimName"),
        ("spec", "resourceClaims", LIST, "resourceClaimTemplateName"),
        ("status", "resourceClaimStatuses", LIST, "resourceClaimName"),
        ("metadata", "ownerReferences", LIST, "name"),
        ("metadata", "ownerReferences", LIST, "uid"),
        ("metadata", "namespace"),
    ),
    "PersistentVolumeClaim": (("spec", "volumeName"), ("spec", "storageClassName")),
    "PersistentVolume": (("spec", "claimRef", "name"), ("spec", "storageClassName"), ("spec", "csi", "driver")),
    "CSINode": (("metadata", "name"), ("spec", "drivers", LIST, "name")),
    "CSIStorageCapacity": (("storageClassName",),),
    "ResourceClaim": (
        ("status", "reservedFor", LIST, "uid"),
        ("status", "allocation", "devices", "results", LIST, "device"),
        ("spec", "devices", "requests", LIST, "exactly", "deviceClassName"),
    ),
    "ResourceSlice": (("spec", "nodeName"), ("spec", "pool", "name")),
    "Event": (("involvedObject", "name"),),
}


def _dangling(doc: Json, rng: random.Random, target: str) -> str:
    obj = pick_object(doc, rng, target, tuple(REFERENCES))
    if obj is None:
        return "no object"
    path = rng.choice(REFERENCES[str(obj.get("kind"))])
    set_path(obj, path, GHOST, rng)
    return "/".join(path)


def _remove(doc: Json, rng: random.Random, target: str) -> str:
    choice = rng.random()
    items = items_of(doc)
    if choice < 0.3 and items:
        kind = rng.choice(["Node", "Pod", *KIND_TYPES])
        doc["items"] = [o for o in items if not (isinstance(o, dict) and o.get("kind") == kind)]
        return f"every {kind}"
    obj = pick_object(doc, rng, target)
    if obj is None:
        return "no object"
    cur: Any = obj
    trail = []
    while isinstance(cur, dict) and cur and rng.random() < 0.7:
        key = rng.choice(sorted(cur))
        trail.append(key)
        if not isinstance(cur[key], dict) or rng.random() < 0.3:
            del cur[key]
            return "/".join(trail)
        cur = cur[key]
    return "nothing"


Mutation = Callable[[Json, random.Random, str], str]
MUTATIONS: dict[str, Mutation] = {
    "wrong-type": _wrong_type,
    "weird-string": _weird_string,
    "huge-number": _huge_number,
    "invalid-quantity": _invalid_quantity,
    "unknown-kind": _unknown_kind,
    "duplicate": _duplicate,
    "dangling-reference": _dangling,
    "removed-field": _remove,
}
BYTE_MUTATIONS = ("truncated", "corrupted")


# ---------------------------------------------------------------------- cases


@cache
def load_base(path: str) -> tuple[Json, str]:
    """A bundled dump and the pod it is about."""
    file = ROOT / path
    data = file.read_bytes()
    if file.suffix == ".gz":
        data = gzip.decompress(data)
    doc = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    pod = dict(BASES)[path] or json.loads((file.parent / "case.json").read_text())["pod"]
    return doc, pod


def _dump(doc: Any, fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps(doc, indent=1).encode()
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    if fmt == "multi-yaml" and isinstance(doc, dict) and isinstance(doc.get("items"), list):
        return yaml.dump_all(doc["items"], Dumper=dumper).encode()
    return yaml.dump(doc, Dumper=dumper, allow_unicode=True).encode()


@dataclass
class Case:
    index: int
    base: str
    pod: str
    mutations: list[str]
    data: bytes
    suffix: str


def make_case(seed: int, index: int) -> Case:
    rng = random.Random(f"podwhy-fuzz/{seed}/{index}")
    base = rng.choice([path for path, _ in BASES])
    doc, pod = load_base(base)
    doc = copy.deepcopy(doc)
    applied: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        name = rng.choice(sorted(MUTATIONS))
        where = MUTATIONS[name](doc, rng, pod)
        applied.append(f"{name}:{where}")
    fmt = rng.choice(("yaml", "yaml", "json", "multi-yaml"))
    data = _dump(doc, fmt)
    if rng.random() < 0.08:
        cut = rng.randrange(len(data))
        data = data[:cut]
        applied.append(f"truncated:{cut}")
    elif rng.random() < 0.04:
        raw = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] = rng.choice((0, 0xFF, 0xC3, ord("{"), ord(":"), ord("\n"), ord("\t")))
        data = bytes(raw)
        applied.append("corrupted")
    suffix = ".json" if fmt == "json" else ".yaml"
    if rng.random() < 0.1:
        data = gzip.compress(data)
        suffix += ".gz"
    return Case(index, base, pod, applied, data, suffix)


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    problems: list[str] = field(default_factory=list)


class CaseTimeout(BaseException):
    """Raised by the alarm when a case runs too long (a BaseException: the CLI must not catch it)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise CaseTimeout


@cache
def _validator() -> Any:
    schema = json.loads(SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def check(code: int, stdout: str, stderr: str) -> list[str]:
    """What is wrong with one run's outcome (nothing, if podwhy behaved)."""
    problems = []
    for stream, text in (("stdout", stdout), ("stderr", stderr)):
        if "Traceback" in text:
            problems.append(f"traceback on {stream}")
    if "internal error" in stderr:
        problems.append("internal error")
    if code in (0, 1) or (code == 3 and stdout):
        try:
            report = json.loads(stdout)
        except ValueError:
            return [*problems, f"exit {code} without a JSON report on stdout"]
        errors = sorted(_validator().iter_errors(report), key=str)
        if errors:
            problems.append(f"report does not match the schema: {errors[0].message}")
        verdict = report.get("verdict") if isinstance(report, dict) else None
        if verdict not in {v.value for v in Verdict} or Verdict(verdict).exit_code != code:
            problems.append(f"exit {code} with verdict {verdict!r}")
    elif code in (2, 3):
        if stdout:
            problems.append(f"exit {code} with output on stdout")
        if stderr.count("\n") != 1 or not stderr.endswith("\n") or not stderr.startswith("podwhy: error: "):
            problems.append(f"exit {code} without exactly one error line on stderr")
    else:
        problems.append(f"unexpected exit code {code}")
    return problems


def run_case(case: Case, workdir: Path) -> Outcome:
    file = workdir / f"case{case.suffix}"
    file.write_bytes(case.data)
    signal.signal(signal.SIGALRM, _on_alarm)
    # CliRunner captures sys.stdout and sys.stderr; native code writes to the file descriptors
    # themselves, and what it writes there reaches the user's terminal too.
    with tempfile.TemporaryFile() as native_stderr:
        saved = os.dup(2)
        os.dup2(native_stderr.fileno(), 2)
        signal.alarm(CASE_SECONDS)
        try:
            result = CliRunner().invoke(app, ["explain", case.pod, "--from", str(file), "-o", "json"])
        except CaseTimeout:
            return Outcome(-1, "", "", [f"took longer than {CASE_SECONDS} s"])
        finally:
            signal.alarm(0)
            os.dup2(saved, 2)
            os.close(saved)
        native_stderr.seek(0)
        native = native_stderr.read().decode(errors="replace")
    outcome = Outcome(result.exit_code, result.stdout, native + result.stderr)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        outcome.problems.append(f"uncaught {type(result.exception).__name__}: {result.exception}")
    outcome.problems += check(outcome.code, outcome.stdout, outcome.stderr)
    return outcome


def save_failure(case: Case, outcome: Outcome, seed: int, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"fuzz-{seed}-{case.index}"
    input_file = stem.with_name(stem.name + case.suffix)
    input_file.write_bytes(case.data)
    stem.with_suffix(".txt").write_text(
        f"podwhy explain {case.pod} --from {input_file} -o json\n"
        f"replay: python -m tests.fuzz --seed {seed} --case {case.index}\n"
        f"base: {case.base}\nmutations: {case.mutations}\nproblems: {outcome.problems}\n"
        f"exit code: {outcome.code}\n--- stderr\n{outcome.stderr}\n--- stdout\n{outcome.stdout[:4000]}\n"
    )
    return input_file


@dataclass
class Summary:
    cases: int = 0
    by_code: Counter[int] = field(default_factory=Counter)
    by_mutation: dict[str, Counter[int]] = field(default_factory=dict)
    violations: list[tuple[Case, Outcome]] = field(default_factory=list)

    def add(self, case: Case, outcome: Outcome) -> None:
        self.cases += 1
        self.by_code[outcome.code] += 1
        for name in {m.split(":", 1)[0] for m in case.mutations}:
            self.by_mutation.setdefault(name, Counter())[outcome.code] += 1
        if outcome.problems:
            self.violations.append((case, outcome))

    def lines(self) -> list[str]:
        out = [f"{self.cases} cases, {len(self.violations)} violations"]
        out.append("exit codes: " + ", ".join(f"{code}: {n}" for code, n in sorted(self.by_code.items())))
        for name, codes in sorted(self.by_mutation.items()):
            counts = ", ".join(f"{code}: {n}" for code, n in sorted(codes.items()))
            out.append(f"  {name:<20} {sum(codes.values()):>6}  (exit {counts})")
        return out


def fuzz(count: int, seed: int, out: Path | None = None, start: int = 0, progress: bool = False) -> Summary:
    summary = Summary()
    with tempfile.TemporaryDirectory(prefix="podwhy-fuzz-") as tmp:
        for index in range(start, start + count):
            case = make_case(seed, index)
            outcome = run_case(case, Path(tmp))
            summary.add(case, outcome)
            if outcome.problems and out is not None:
                saved = save_failure(case, outcome, seed, out)
                print(f"case {index}: {'; '.join(outcome.problems)} (input saved to {saved})", file=sys.stderr)
            if index % 200 == 199:
                # podwhy freezes what it loads (gc.freeze): let this long-lived process collect again.
                gc.unfreeze()
                gc.collect()
                if progress:
                    print(f"... {index + 1 - start} cases", file=sys.stderr)
    return summary


def replay(seed: int, index: int) -> int:
    """Run one case and show it."""
    case = make_case(seed, index)
    with tempfile.TemporaryDirectory(prefix="podwhy-fuzz-") as tmp:
        outcome = run_case(case, Path(tmp))
    print(f"base: {case.base}  pod: {case.pod}\nmutations: {case.mutations}\nexit code: {outcome.code}")
    print(f"stderr: {outcome.stderr}stdout: {outcome.stdout[:300]}")
    print(f"problems: {outcome.problems or 'none'}")
    return 1 if outcome.problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="number of cases (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--case", type=int, default=None, help="replay this one case of the seed")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(tempfile.gettempdir()) / "podwhy-fuzz-failures",
        help="where to save the input and outputs of every violation",
    )
    args = parser.parse_args(argv)
    if args.case is not None:
        return replay(args.seed, args.case)
    began = time.monotonic()
    summary = fuzz(args.count, args.seed, args.out, progress=True)
    for line in summary.lines():
        print(line)
    print(f"{time.monotonic() - began:.1f} s")
    return 1 if summary.violations else 0


if __name__ == "__main__":
    sys.exit(main())
