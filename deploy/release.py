"""Builds podwhy's release assets: its wheel, and per platform an archive that carries everything.

    python deploy/release.py OUT_DIR [--platform linux/amd64 ...] [--native]

Writes to OUT_DIR:
- `podwhy-VERSION-py3-none-any.whl`, podwhy's own wheel;
- for each platform (default: every platform of the krew manifest), `kubectl-podwhy-OS-ARCH.tar.gz`
  holding the launcher `kubectl-podwhy`, `LICENSE` and `wheelhouse/`: podwhy's wheel and a wheel
  of every dependency for CPython 3.11, 3.12 and 3.13 on that platform. Nothing is installed from
  a package index afterwards: the launcher (krew) and `pipx install --pip-args="--no-index
  --find-links wheelhouse" ./podwhy-*.whl` both install from that folder alone;
- `podwhy.yaml`, the krew manifest with each archive's sha256 (also written back to
  deploy/krew/podwhy.yaml).

`--native` builds a single archive, for the interpreter running this script (its platform and
Python version), named `kubectl-podwhy-native.tar.gz`: what the tests install from.

Building asks the package index for the dependency wheels (pip download); each archive is
byte-for-byte reproducible from the same wheels (fixed mtimes, owners and order).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LAUNCHER = HERE / "krew" / "kubectl-podwhy"
MANIFEST = HERE / "krew" / "podwhy.yaml"
# The repository's LICENSE (Apache-2.0, as Kubernetes), carried in every archive.
LICENSE = ROOT / "LICENSE"
PYTHONS = ("3.11", "3.12", "3.13")

_MACOS = ("10_9", "10_10", "10_11", "10_12", "10_13", "10_14", "10_15", "11_0", "12_0", "13_0", "14_0")
# krew's os/arch -> the wheel platform tags pip may take for it.
PLATFORMS: dict[str, list[str]] = {
    "linux/amd64": [f"manylinux_2_{v}_x86_64" for v in (17, 28)] + ["manylinux2014_x86_64"],
    "linux/arm64": [f"manylinux_2_{v}_aarch64" for v in (17, 28)] + ["manylinux2014_aarch64"],
    "darwin/amd64": [f"macosx_{v}_x86_64" for v in _MACOS] + [f"macosx_{v}_universal2" for v in _MACOS],
    "darwin/arm64": [f"macosx_{v}_arm64" for v in _MACOS if not v.startswith("10_")]
    + [f"macosx_{v}_universal2" for v in _MACOS],
}


def project() -> tuple[str, list[str]]:
    """podwhy's version and its runtime requirements, from pyproject.toml."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return data["project"]["version"], list(data["project"]["dependencies"])


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], check=True)


def build_wheel(out: Path) -> Path:
    version, _ = project()
    pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(ROOT))
    return out / f"podwhy-{version}-py3-none-any.whl"


def download_dependencies(dest: Path, platform: str | None) -> None:
    """Wheels of every runtime requirement (and theirs) for PLATFORM, or this interpreter's (None)."""
    _, requirements = project()
    args = ["download", "--quiet", "--only-binary=:all:", "--dest", str(dest)]
    if platform is None:
        pip(*args, *requirements)
        return
    for python in PYTHONS:
        tags = [f"--platform={tag}" for tag in PLATFORMS[platform]]
        pip(*args, *tags, f"--python-version={python}", "--implementation=cp", *requirements)


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
    return "kubectl-podwhy-native.tar.gz" if platform is None else f"kubectl-podwhy-{platform.replace('/', '-')}.tar.gz"


def write_manifest(digests: dict[str, str], out: Path) -> None:
    """podwhy.yaml with one krew platform entry per archive built."""
    version, _ = project()
    text = MANIFEST.read_text()
    head = text[: text.index("  platforms:\n")]
    head = re.sub(r"version: v[0-9.]+", f"version: v{version}", head)
    entries = []
    for platform, digest in digests.items():
        os_, arch = platform.split("/")
        entries.append(
            "    - selector:\n"
            "        matchLabels:\n"
            f"          os: {os_}\n"
            f"          arch: {arch}\n"
            f"      uri: https://github.com/podwhy/podwhy/releases/download/v{version}/{archive_name(platform)}\n"
            f"      sha256: {digest}\n"
            "      bin: kubectl-podwhy\n"
            "      files:\n"
            "        - {from: kubectl-podwhy, to: .}\n"
            "        - {from: LICENSE, to: .}\n"
            "        - {from: wheelhouse, to: .}\n"
        )
    manifest = head + "  platforms:\n" + "".join(entries)
    (out / "podwhy.yaml").write_text(manifest)
    MANIFEST.write_text(manifest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the release assets")
    parser.add_argument("--platform", action="append", choices=sorted(PLATFORMS), help="krew os/arch (repeatable)")
    parser.add_argument("--native", action="store_true", help="one archive for this interpreter's platform")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(args.out)
    platforms: list[str | None] = [None] if args.native else list(args.platform or PLATFORMS)
    digests: dict[str, str] = {}
    for platform in platforms:
        with tempfile.TemporaryDirectory() as tmp:
            wheelhouse = Path(tmp)
            (wheelhouse / wheel.name).write_bytes(wheel.read_bytes())
            download_dependencies(wheelhouse, platform)
            data = archive(wheelhouse)
        name = archive_name(platform)
        (args.out / name).write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        print(f"{name} {digest}")
        if platform is not None:
            digests[platform] = digest
    if digests:
        write_manifest(digests, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
