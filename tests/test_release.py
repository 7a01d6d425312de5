"""The release assets (deploy/release.py, .github/workflows/release.yml): pinned inputs, a krew
manifest in krew's format, reproducible archives that install offline, and a workflow that
publishes exactly what the docs name."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
EXAMPLE = ROOT / "fixtures" / "examples" / "shop-cluster.yaml"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
VERSION = PROJECT["version"]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
WHEEL = f"podwhy-{VERSION}-py3-none-any.whl"


def _release() -> ModuleType:
    spec = importlib.util.spec_from_file_location("podwhy_release", DEPLOY / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _name(requirement: str) -> str:
    """A requirement's project name, normalised (PEP 503)."""
    return re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]).lower()


def test_the_lock_pins_every_wheel_by_hash() -> None:
    """Each requirement exactly pinned with its hashes; podwhy's dependencies, the build backend
    and pipx's own pip all in it; no marker but Windows' (the wheelhouse is downloaded with
    --no-deps for other platforms and Pythons than this one, which pip's markers would not see)."""
    release = _release()
    lock = release.locked()
    assert lock and all(re.match(r"[a-z0-9-]+==[\w.]+[ ;]", block) for block in lock.values())
    assert all(re.search(r"--hash=sha256:[0-9a-f]{64}", block) for block in lock.values())
    names = {_name(name) for name in lock}
    assert {_name(r) for r in PROJECT["dependencies"]} <= names
    assert {"pip", *release.BUILD_TOOLS} <= names
    for block in lock.values():
        marker = block.split(" \\", 1)[0].partition(";")[2].strip()
        assert marker in ("", "sys_platform == 'win32'"), block


def test_the_wheelhouse_covers_every_python_podwhy_claims() -> None:
    classifiers = PROJECT["classifiers"]
    claimed = [c.rsplit(" :: ", 1)[1] for c in classifiers if re.fullmatch(r".* :: Python :: 3\.\d+", c)]
    assert PROJECT["requires-python"] == f">={claimed[0]}"
    assert tuple(claimed) == _release().PYTHONS


def test_archive_is_reproducible(tmp_path: Path) -> None:
    release = _release()
    (tmp_path / "a.whl").write_bytes(b"wheel")
    first = release.archive(tmp_path)
    assert first == release.archive(tmp_path)
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        assert tar.getnames() == ["kubectl-podwhy", "LICENSE", "wheelhouse/a.whl"]
        assert tar.getmember("kubectl-podwhy").mode == 0o755
        assert {(m.mtime, m.uid, m.gid, m.uname) for m in tar.getmembers()} == {(0, 0, 0, "root")}


# krew's manifest format (krew's internal/index/validation and pkg/index types): the fields it
# knows, and what it requires of them.
KREW_SPEC = {"version", "homepage", "shortDescription", "description", "caveats", "platforms"}
KREW_PLATFORM = {"selector", "uri", "sha256", "files", "bin"}


def validate_krew_manifest(manifest: dict[str, Any], name: str) -> None:
    assert set(manifest) == {"apiVersion", "kind", "metadata", "spec"}
    assert manifest["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"
    assert manifest["kind"] == "Plugin"
    assert manifest["metadata"] == {"name": name} and re.fullmatch(r"[\w-]+", name)
    spec = manifest["spec"]
    assert set(spec) <= KREW_SPEC
    assert spec["shortDescription"] and not re.search(r"[\r\n]", spec["shortDescription"])
    assert re.fullmatch(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", spec["version"])
    assert spec["platforms"]
    seen = set()
    for platform in spec["platforms"]:
        assert set(platform) <= KREW_PLATFORM and platform["uri"] and platform["bin"]
        assert re.fullmatch(r"[a-f0-9]{64}", platform["sha256"])
        labels = platform["selector"]["matchLabels"]
        assert set(platform["selector"]) == {"matchLabels"} and set(labels) == {"os", "arch"}
        assert (labels["os"], labels["arch"]) not in seen  # one entry per os/arch
        seen.add((labels["os"], labels["arch"]))
        assert platform["files"] and all(op["from"] and op["to"] for op in platform["files"])


def krew_install(platform: dict[str, Any], archive: Path, dest: Path) -> Path:
    """Install ARCHIVE as krew installs a platform entry: check its sha256, unpack it, move each
    `files` operation's `from` glob to `to`, and return the `bin`, which must be there."""
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == platform["sha256"]
    work, dest = dest / "download", dest / "install"
    with tarfile.open(archive) as tar:
        unpack(tar, work)
    dest.mkdir()
    for op in platform["files"]:
        matches = sorted(work.glob(op["from"]))
        assert matches, f"{op['from']!r} matches nothing in the archive"
        for match in matches:
            shutil.move(match, dest / op["to"] / match.name)
    binary = (dest / platform["bin"]).resolve()
    assert binary.is_relative_to(dest.resolve()) and binary.is_file() and os.access(binary, os.X_OK)
    return binary


def test_the_template_is_a_krew_manifest_once_release_py_adds_platforms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--platform X` adds X's entry to OUT/podwhy.yaml and keeps those of the archives built
    into OUT before; SHA256SUMS covers every asset; the repository's template is never written;
    `--assemble` refuses an archive whose podwhy wheel is not the one it builds."""
    release = _release()
    template = release.MANIFEST.read_text()
    assert "platforms" not in yaml.safe_load(template)["spec"]
    wheel_bytes = [b"podwhy wheel"]

    def build_wheel(out: Path) -> Path:
        (out / WHEEL).write_bytes(wheel_bytes[0])
        return out / WHEEL

    def download(dest: Path, platform: str | None) -> None:
        (dest / f"dep-1-{(platform or 'native').replace('/', '_')}.whl").write_bytes(b"dep")

    monkeypatch.setattr(release, "build_wheel", build_wheel)
    monkeypatch.setattr(release, "download_dependencies", download)
    out = tmp_path / "dist"
    assert release.main([str(out), "--platform", "darwin/arm64"]) == 0
    assert release.main([str(out), "--platform", "linux/amd64"]) == 0
    manifest = yaml.safe_load((out / "podwhy.yaml").read_text())
    validate_krew_manifest(manifest, "podwhy")
    assert manifest["spec"]["version"] == f"v{VERSION}"
    entries = {
        f"{p['selector']['matchLabels']['os']}/{p['selector']['matchLabels']['arch']}": p
        for p in manifest["spec"]["platforms"]
    }
    assert list(entries) == ["linux/amd64", "darwin/arm64"]
    for platform, entry in entries.items():
        archive = out / release.archive_name(platform)
        assert entry["uri"] == f"https://github.com/podwhy/podwhy/releases/download/v{VERSION}/{archive.name}"
        krew_install(entry, archive, tmp_path / platform.replace("/", "-"))
    sums = dict(reversed(line.split("  ")) for line in (out / "SHA256SUMS").read_text().splitlines())
    assert sorted(sums) == sorted([WHEEL, "podwhy.yaml", *(release.archive_name(p) for p in entries)])
    assert all(hashlib.sha256((out / name).read_bytes()).hexdigest() == digest for name, digest in sums.items())
    assert release.MANIFEST.read_text() == template
    wheel_bytes[0] = b"another build"
    with pytest.raises(SystemExit, match="differs from the wheel built here"):
        release.main([str(out), "--assemble"])


def test_the_workflow_publishes_what_release_py_builds_and_the_docs_name() -> None:
    release = _release()
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML 1.1 reads the key `on` as true
    archive_job, publish = workflow["jobs"]["archive"], workflow["jobs"]["publish"]
    matrix = archive_job["strategy"]["matrix"]["include"]
    assert [m["platform"] for m in matrix] == list(release.PLATFORMS)
    assert all(m["archive"] == release.archive_name(m["platform"]) for m in matrix)
    runs = [step["run"] for job in (archive_job, publish) for step in job["steps"] if "run" in step]
    assert any("python deploy/release.py dist --platform ${{ matrix.platform }}" in r for r in runs)
    assert any("python deploy/release.py dist --assemble" in r for r in runs)
    for path in re.findall(r"\b((?:deploy|fixtures|tests|docs)/[\w./-]+)", "\n".join(runs)):
        assert (ROOT / path).exists(), path
    published = next(r for r in runs if "gh release create" in r)
    globs = [word.removeprefix("dist/") for word in published.split() if word.startswith("dist/")]
    assets = [WHEEL, *(release.archive_name(p) for p in release.PLATFORMS), "podwhy.yaml", release.SUMS]
    assert all(any(fnmatch.fnmatchcase(a, g) for a in assets) for g in globs)
    assert all(any(fnmatch.fnmatchcase(a, g) for g in globs) for a in assets)
    # Every release download the docs and the manifest template point at is one of these assets.
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), release.MANIFEST, WORKFLOW]
    for text in texts:
        for version, name in re.findall(r"releases/download/v([\w.${}]+)/([\w.${}*-]+)", text.read_text()):
            assert version == VERSION and name in assets, (text.name, version, name)


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


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """deploy/release.py --native's output folder: the wheel and the archive for this interpreter."""
    out = tmp_path_factory.mktemp("dist")
    assert _release().main([str(out), "--native"]) == 0
    return out


def _offline(tmp_path: Path, *path: Path, **extra: str) -> dict[str, str]:
    """An environment with no package index: python3 >= 3.11 and PATH's folders first."""
    python_dir = Path(sys.executable).parent
    return {
        "PATH": os.pathsep.join([*map(str, path), str(python_dir), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PIP_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,
        **extra,
    }


EXPLAIN = ["explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", str(EXAMPLE)]


def test_native_archive_installs_as_krew_installs_it_and_runs_without_a_package_index(
    tmp_path: Path, native: Path
) -> None:
    """Install this interpreter's archive as krew would from a manifest release.py writes for
    it, and run the launcher with every package index switched off: the wheelhouse alone must
    install podwhy, and the first run says what it does. The wheel, built again, is the same bytes."""
    release = _release()
    out = native
    wheel = (out / WHEEL).read_bytes()
    assert release.build_wheel(tmp_path).read_bytes() == wheel
    assets = tmp_path / "assets"  # this archive as if it were linux/amd64's, for its manifest
    assets.mkdir()
    shutil.copyfile(out / release.NATIVE, assets / release.archive_name("linux/amd64"))
    manifest = yaml.safe_load(release.write_manifest(assets))
    validate_krew_manifest(manifest, "podwhy")
    [platform] = manifest["spec"]["platforms"]
    binary = krew_install(platform, assets / release.archive_name("linux/amd64"), tmp_path / "store")
    wheels = sorted(p.name for p in (binary.parent / "wheelhouse").iterdir())
    assert WHEEL in wheels
    assert any(name.startswith("msgspec-") for name in wheels)
    assert {"pip", "setuptools", "wheel"} <= {name.split("-")[0] for name in wheels}  # for pipx
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "kubectl-podwhy").symlink_to(binary)  # krew links the bin
    env = _offline(tmp_path, bindir)
    first, again = (
        subprocess.run(["kubectl-podwhy", *EXPLAIN], env=env, capture_output=True, text=True, timeout=600, check=False)
        for _ in range(2)
    )
    assert first.returncode == again.returncode == 1, first.stderr  # the example pod is Unschedulable
    assert "0/4 nodes are available" in first.stdout and first.stdout == again.stdout
    home = tmp_path / "cache" / "kubectl-podwhy" / VERSION
    assert first.stderr.startswith(
        f"kubectl-podwhy: first run: installing podwhy {VERSION} from {binary.parent}/wheelhouse into {home}"
    )
    assert "kubectl-podwhy: installed; running podwhy\n" in first.stderr
    assert "kubectl-podwhy:" not in again.stderr
    assert (home / "bin" / "podwhy").is_file()


def test_the_archive_installs_with_a_first_time_pipx_and_no_package_index(tmp_path: Path, native: Path) -> None:
    """The README's pipx route on a new PIPX_HOME: pipx first upgrades its shared pip, which only
    the wheelhouse can give (PIP_FIND_LINKS reaches every pip pipx runs)."""
    plugin = tmp_path / "podwhy"
    with tarfile.open(native / _release().NATIVE) as tar:
        unpack(tar, plugin)
    wheelhouse = plugin / "wheelhouse"
    env = _offline(
        tmp_path,
        PIP_FIND_LINKS=str(wheelhouse),
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
    )
    install = [sys.executable, "-m", "pipx", "install", "--python", sys.executable, str(wheelhouse / WHEEL)]
    run = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "pipx" / "shared").is_dir()  # pipx's shared pip was set up, offline
    run = subprocess.run([str(tmp_path / "bin" / "podwhy"), *EXPLAIN], capture_output=True, text=True, check=False)
    assert run.returncode == 1 and "0/4 nodes are available" in run.stdout, run.stderr
