"""The typed objects: one module per API group behind one import."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from types import ModuleType

import msgspec
import pytest

from podwhy.model import objects as o

# Every module of the package, also those of its subpackages (core/: the core API group, by area).
MODULES = [
    importlib.import_module(info.name) for info in pkgutil.walk_packages(o.__path__, f"{o.__name__}.") if not info.ispkg
]


def _defined(module: ModuleType) -> set[str]:
    """The public names a module defines at its top level (not those it imports)."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if not name.startswith("_")}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.removeprefix(f"{o.__name__}."))
def test_every_public_name_is_re_exported(module: ModuleType) -> None:
    names = _defined(module)
    assert names
    missing = sorted(name for name in names if name not in o.__all__ or getattr(o, name) is not getattr(module, name))
    assert not missing, f"re-export from podwhy/model/objects/__init__.py: {missing}"


def test_no_name_is_defined_twice() -> None:
    seen: dict[str, str] = {}
    for module in MODULES:
        for name in _defined(module):
            assert name not in seen, f"{name} in {seen.get(name)} and {module.__name__}"
            seen[name] = module.__name__


@pytest.mark.parametrize(
    "struct",
    [value for name in o.__all__ if isinstance(value := getattr(o, name), type) and issubclass(value, msgspec.Struct)],
    ids=lambda t: t.__name__,
)
def test_every_annotation_resolves_in_its_module(struct: type[msgspec.Struct]) -> None:
    """msgspec reads a struct's string annotations in the module that defines it: a name used only
    in an annotation must still be imported there, or decoding that kind fails at its first use."""
    msgspec.json.Decoder(struct)
