"""The release assets (deploy/release.py): the krew manifest, and an archive that installs offline."""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
EXAMPLE = ROOT / "fixtures" / "examples" / "shop-cluster.yaml"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _release() -> ModuleType:
    spec = importlib.util.spec_from_file_location("podwhy_release", DEPLOY / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_krew_manifest_lists_every_platform_archive() -> None:
    release = _release()
    manifest = yaml.safe_load((DEPLOY / "krew" / "podwhy.yaml").read_text())
    assert manifest["metadata"]["name"] == "podwhy" and manifest["spec"]["version"] == f"v{VERSION}"
    platforms = manifest["spec"]["platforms"]
    seen = {f"{p['selector']['matchLabels']['os']}/{p['selector']['matchLabels']['arch']}" for p in platforms}
    assert seen == set(release.PLATFORMS)
    for platform in platforms:
        assert platform["bin"] == "kubectl-podwhy"
        assert {f["from"] for f in platform["files"]} == {"kubectl-podwhy", "LICENSE", "wheelhouse"}
        assert len(platform["sha256"]) == 64
        assert platform["uri"].endswith(f"/v{VERSION}/" + platform["uri"].rsplit("/", 1)[1])
    launcher = DEPLOY / "krew" / "kubectl-podwhy"
    assert subprocess.run(["sh", "-n", str(launcher)], check=False).returncode == 0
    assert f'version="{VERSION}"' in launcher.read_text()
    assert "--no-index --find-links" in launcher.read_text()


def test_archive_is_reproducible(tmp_path: Path) -> None:
    release = _release()
    (tmp_path / "a.whl").write_bytes(b"wheel")
    first = release.archive(tmp_path)
    assert first == release.archive(tmp_path)
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        assert tar.getnames() == ["kubectl-podwhy", "LICENSE", "wheelhouse/a.whl"]
        assert tar.getmember("kubectl-podwhy").mode == 0o755


def unpack(tar: tarfile.TarFile, dest: Path) -> None:
    """Unpack as krew does: regular files and folders, each inside DEST. tarfile's "data" filter
    says so where the Python has it (3.11.4 and newer); older 3.11s check each member here."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    root = dest.resolve()
    for member in tar.getmembers():
        inside = (root / member.name).resolve().is_relative_to(root)
        assert inside and (member.isfile() or member.isdir()), f"unsafe archive member {member.name!r}"
    tar.extractall(dest)


def test_native_archive_installs_and_runs_without_a_package_index(tmp_path: Path) -> None:
    """Build the archive for this interpreter, unpack it as krew would, and run the launcher with
    every package index switched off: the wheelhouse alone must install podwhy."""
    release = _release()
    out = tmp_path / "dist"
    assert release.main([str(out), "--native"]) == 0
    assert (out / f"podwhy-{VERSION}-py3-none-any.whl").is_file()
    plugin = tmp_path / "store"
    with tarfile.open(out / "kubectl-podwhy-native.tar.gz") as tar:
        unpack(tar, plugin)
    wheels = sorted(p.name for p in (plugin / "wheelhouse").iterdir())
    assert f"podwhy-{VERSION}-py3-none-any.whl" in wheels
    assert any(name.startswith("msgspec-") for name in wheels)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "kubectl-podwhy").symlink_to(plugin / "kubectl-podwhy")  # krew links the bin
    python_dir = str(Path(sys.executable).parent)  # a python3 >= 3.11 first on the PATH
    env = {
        "PATH": os.pathsep.join([str(bindir), python_dir, "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PIP_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,
    }
    run = subprocess.run(
        ["kubectl-podwhy", "explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(EXAMPLE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 1, run.stderr  # the example pod is Unschedulable
    assert "0/4 nodes are available" in run.stdout
    assert (tmp_path / "cache" / "kubectl-podwhy" / VERSION / "bin" / "podwhy").is_file()
