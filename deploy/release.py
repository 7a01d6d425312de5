"""Builds podwhy's release assets: its wheel, and per platform an archive that carries everything.

    python deploy/release.py OUT_DIR [--platform linux/amd64 ...] [--native | --assemble]

Writes to OUT_DIR:
- `podwhy-VERSION-py3-none-any.whl`, podwhy's own wheel;
- for each platform (default: all four), `kubectl-podwhy-OS-ARCH.tar.gz` holding the launcher
  `kubectl-podwhy`, `LICENSE` and `wheelhouse/`: podwhy's wheel and a wheel of every package
  pinned in deploy/requirements-release.txt, for CPython 3.11 to 3.14 on that platform. Nothing
  is installed from a package index afterwards: the launcher (krew) and pipx both install from
  that folder alone;
- `podwhy.yaml`, the krew manifest (deploy/krew/podwhy.template.yaml plus one platform entry,
  with its sha256, for every `kubectl-podwhy-OS-ARCH.tar.gz` in OUT_DIR: archives built into
  OUT_DIR earlier, or by other jobs, are kept);
- `SHA256SUMS` for every asset above (`sha256sum --check --ignore-missing SHA256SUMS`).

`--native` builds a single archive, for the interpreter running this script (its platform and
Python version), named `kubectl-podwhy-native.tar.gz`: what the tests install from. `--assemble`
builds no archive: it writes the wheel, podwhy.yaml and SHA256SUMS for the archives already in
OUT_DIR, and fails unless each of them carries that very wheel (.github/workflows/release.yml
builds the archives on one runner per platform, then assembles the release).

Every input is pinned: the wheels by their sha256 in deploy/requirements-release.txt (pip's
hash-checking mode), the wheel's build backend likewise, its timestamps by SOURCE_DATE_EPOCH
(default: the last commit's time). The same commit therefore gives the same bytes, wheel and
archives alike (fixed mtimes, owners, modes and order).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LAUNCHER = HERE / "krew" / "kubectl-podwhy"
MANIFEST = HERE / "krew" / "podwhy.template.yaml"
LOCK = HERE / "requirements-release.txt"
# The repository's LICENSE (Apache-2.0, as Kubernetes), carried in every archive.
LICENSE = ROOT / "LICENSE"
# Every CPython podwhy supports (pyproject.toml's requires-python, up to the newest release).
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
# What builds podwhy's wheel (pyproject.toml's build-system, and what wheel needs), from LOCK.
BUILD_TOOLS = ("setuptools", "wheel", "packaging")
RELEASES = "https://github.com/podwhy/podwhy/releases/download"
NATIVE = "kubectl-podwhy-native.tar.gz"
SUMS = "SHA256SUMS"

_MACOS = ("10_9", "10_10", "10_11", "10_12", "10_13", "10_14", "10_15", "11_0", "12_0", "13_0", "14_0")
# krew's os/arch -> the wheel platform tags pip may take for it.
PLATFORMS: dict[str, list[str]] = {
    "linux/amd64": [f"manylinux_2_{v}_x86_64" for v in (17, 27, 28)] + ["manylinux2014_x86_64"],
    "linux/arm64": [f"manylinux_2_{v}_aarch64" for v in (17, 27, 28)] + ["manylinux2014_aarch64"],
    "darwin/amd64": [f"macosx_{v}_x86_64" for v in _MACOS] + [f"macosx_{v}_universal2" for v in _MACOS],
    "darwin/arm64": [f"macosx_{v}_arm64" for v in _MACOS if not v.startswith("10_")]
    + [f"macosx_{v}_universal2" for v in _MACOS],
}


def project() -> tuple[str, list[str]]:
    """podwhy's version and its runtime requirements, from pyproject.toml."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data["project"]["version"], list(data["project"]["dependencies"])


def locked() -> dict[str, str]:
    """The lock file's requirements, by project name: each one's full text (pin, marker, hashes)."""
    blocks: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", LOCK.read_text()):
        if block.strip() and not block.startswith("#"):
            blocks[re.split(r"[=;\s]", block, maxsplit=1)[0].lower()] = block.strip() + "\n"
    return blocks


def pip(*args: str, python: str = sys.executable, env: dict[str, str] | None = None) -> None:
    subprocess.run([python, "-m", "pip", "--disable-pip-version-check", *args], check=True, env=env)


def source_date_epoch() -> str:
    """SOURCE_DATE_EPOCH as given, else the last commit's time: the wheel's timestamps."""
    if "SOURCE_DATE_EPOCH" in os.environ:
        return os.environ["SOURCE_DATE_EPOCH"]
    run = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return run.stdout.strip() if run.returncode == 0 and run.stdout.strip() else "315532800"  # 1980-01-01


def copy_sources(dest: Path) -> None:
    """The checkout's files (tracked, or new and not ignored) as they are on disk, without build/
    or *.egg-info leftovers a build would pick up; modes 644 (755 if executable), whatever the umask."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout
    for name in sorted({n for n in listed.decode().split("\0") if n}):
        source = ROOT / name
        if not source.is_file():  # deleted, not yet committed
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        target.chmod(0o755 if os.access(source, os.X_OK) else 0o644)


def build_wheel(out: Path) -> Path:
    """podwhy's wheel, built from a clean copy of the sources with the pinned build backend."""
    version, _ = project()
    lock = locked()
    with tempfile.TemporaryDirectory() as tmp:
        src, env_dir, requirements = Path(tmp) / "src", Path(tmp) / "env", Path(tmp) / "build.txt"
        copy_sources(src)
        requirements.write_text("".join(lock[name] for name in BUILD_TOOLS))
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        python = str(env_dir / ("Scripts" if os.name == "nt" else "bin") / "python")
        pip("install", "--quiet", "--no-deps", "--require-hashes", "-r", str(requirements), python=python)
        env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch()}
        umask = os.umask(0o022)
        try:
            pip(
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
                str(out),
                str(src),
                python=python,
                env=env,
            )
        finally:
            os.umask(umask)
    return out / f"podwhy-{version}-py3-none-any.whl"


def download_dependencies(dest: Path, platform: str | None) -> None:
    """The lock file's wheels for PLATFORM and every Python of PYTHONS, or this interpreter's (None)."""
    args = ["download", "--quiet", "--no-deps", "--require-hashes", "--only-binary=:all:", "-r", str(LOCK)]
    if platform is None:
        pip(*args, "--dest", str(dest))
        return
    for python in PYTHONS:
        tags = [f"--platform={tag}" for tag in PLATFORMS[platform]]
        pip(*args, "--dest", str(dest), *tags, f"--python-version={python}", "--implementation=cp")


def archive(wheelhouse: Path) -> bytes:
    """The krew archive: launcher, LICENSE and the wheelhouse, reproducible."""
    files: list[tuple[str, bytes, int]] = [
        ("kubectl-podwhy", LAUNCHER.read_bytes(), 0o755),
        ("LICENSE", LICENSE.read_bytes(), 0o644),
    ]
    files += [(f"wheelhouse/{w.name}", w.read_bytes(), 0o644) for w in sorted(wheelhouse.glob("*.whl"))]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data, mode in files:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime, info.uname, info.gname = len(data), mode, 0, "root", "root"
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def archive_name(platform: str | None) -> str:
    return NATIVE if platform is None else f"kubectl-podwhy-{platform.replace('/', '-')}.tar.gz"


def archives(out: Path) -> dict[str, Path]:
    """The platform archives in OUT, by krew os/arch, in PLATFORMS' order."""
    return {p: out / archive_name(p) for p in PLATFORMS if (out / archive_name(p)).is_file()}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(out: Path) -> str:
    """OUT/podwhy.yaml: the template with one krew platform entry per archive in OUT."""
    version, _ = project()
    text = MANIFEST.read_text()
    text = re.sub(r"version: v[0-9.]+", f"version: v{version}", text)
    entries = []
    for platform, path in archives(out).items():
        os_, arch = platform.split("/")
        entries.append(
            "    - selector:\n"
            "        matchLabels:\n"
            f"          os: {os_}\n"
            f"          arch: {arch}\n"
            f"      uri: {RELEASES}/v{version}/{path.name}\n"
            f"      sha256: {sha256(path)}\n"
            "      bin: kubectl-podwhy\n"
            "      files:\n"
            "        - {from: kubectl-podwhy, to: .}\n"
            "        - {from: LICENSE, to: .}\n"
            "        - {from: wheelhouse, to: .}\n"
        )
    manifest = text + "  platforms:\n" + "".join(entries)
    (out / "podwhy.yaml").write_text(manifest)
    return manifest


def write_sums(out: Path, wheel: Path) -> None:
    """OUT/SHA256SUMS, as sha256sum writes it, for the wheel, the archives and the manifest."""
    assets = sorted([wheel, *archives(out).values(), out / "podwhy.yaml"], key=lambda p: p.name)
    (out / SUMS).write_text("".join(f"{sha256(p)}  {p.name}\n" for p in assets))


def check_carries(path: Path, wheel: Path) -> None:
    """The archive at PATH carries WHEEL byte for byte (its build was reproduced)."""
    with tarfile.open(path) as tar:
        member = tar.extractfile(f"wheelhouse/{wheel.name}")
        if member is None or member.read() != wheel.read_bytes():
            raise SystemExit(f"{path.name}: its wheelhouse/{wheel.name} differs from the wheel built here")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the release assets")
    parser.add_argument("--platform", action="append", choices=list(PLATFORMS), help="krew os/arch (repeatable)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--native", action="store_true", help="one archive for this interpreter's platform")
    mode.add_argument("--assemble", action="store_true", help="no archive: manifest and sums for OUT's archives")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(args.out)
    print(f"{wheel.name} {sha256(wheel)}")
    platforms: list[str | None] = []
    if args.native:
        platforms = [None]
    elif not args.assemble:
        platforms = list(args.platform or PLATFORMS)
    for platform in platforms:
        with tempfile.TemporaryDirectory() as tmp:
            wheelhouse = Path(tmp)
            shutil.copyfile(wheel, wheelhouse / wheel.name)
            download_dependencies(wheelhouse, platform)
            data = archive(wheelhouse)
        name = archive_name(platform)
        (args.out / name).write_bytes(data)
        print(f"{name} {hashlib.sha256(data).hexdigest()}")
    if args.native:
        return 0
    for path in archives(args.out).values():
        check_carries(path, wheel)
    write_manifest(args.out)
    write_sums(args.out, wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
