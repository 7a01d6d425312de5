"""Builds the krew archive (the launcher and the license text) and writes its sha256 into the manifest.

    python deploy/krew/build.py OUT_DIR

The archive is byte-for-byte reproducible (fixed mtimes, owners and order), so the sha256 in
podwhy.yaml can be checked by rebuilding it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = {"kubectl-podwhy": 0o755, "LICENSE": 0o644}
LICENSE = "podwhy is licensed under the Apache License, Version 2.0: https://www.apache.org/licenses/LICENSE-2.0\n"


def archive() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, mode in FILES.items():
            data = LICENSE.encode() if name == "LICENSE" else (HERE / name).read_bytes()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime, info.uname, info.gname = len(data), mode, 0, "root", "root"
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    data = archive()
    (out / "kubectl-podwhy.tar.gz").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    manifest = HERE / "podwhy.yaml"
    text = re.sub(r"sha256: [0-9a-f]{64}", f"sha256: {digest}", manifest.read_text())
    manifest.write_text(text)
    print(digest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
