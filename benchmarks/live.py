"""Live-mode benchmark: fetch + explain through a local API server, against the offline path.

    python -m benchmarks.live [--nodes 5000] [--pods 150000] [--page-size 500]

Generates the same synthetic cluster as `benchmarks.run`, serves it from a separate process as
the Kubernetes API would (paged lists of pre-encoded JSON, so serving costs little and is
measured), then in child processes times (1) `podwhy explain` live through the real kubernetes
client and (2) the same explain from the dump file. Prints wall seconds, the server's own
serving time, requests, and each child's peak memory. Target: live <= serving + offline, and
live peak memory <= offline peak + one page.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from benchmarks.run import build, write

PATHS = {"Node": "/api/v1/nodes", "Pod": "/api/v1/pods"}


def serve(dump: Path, page_size: int, port_file: Path) -> None:
    """Serve the dump's Nodes and Pods as paged lists; every other list is empty."""
    with dump.open("rb") as f:
        items = json.load(f)["items"]
    pages: dict[str, list[bytes]] = {}
    for kind, path in PATHS.items():
        objs = [o for o in items if o.get("kind") == kind]
        chunks = [objs[i : i + page_size] for i in range(0, len(objs), page_size)] or [[]]
        pages[path] = []
        for n, chunk in enumerate(chunks):
            meta: dict[str, Any] = {"resourceVersion": "1"}
            if n + 1 < len(chunks):
                meta["continue"] = str(n + 1)
            pages[path].append(json.dumps({"kind": f"{kind}List", "metadata": meta, "items": chunk}).encode())
    del items
    stats = {"requests": 0, "serving_s": 0.0, "non_get": 0}
    lock = threading.Lock()
    empty = b'{"kind":"List","metadata":{"resourceVersion":"1"},"items":[]}'

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            start = time.perf_counter()
            url = urlsplit(self.path)
            if url.path == "/stats":
                body = json.dumps(stats).encode()
            else:
                query = parse_qs(url.query)
                index = int((query.get("continue") or ["0"])[0])
                body = pages[url.path][index] if url.path in pages else empty
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with lock:
                if url.path != "/stats":
                    stats["requests"] += 1
                    stats["serving_s"] += time.perf_counter() - start

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


CHILD = """
import json, resource, sys, time
from podwhy.engine import ExplainRequest, explain
from podwhy.snapshot.live.source import LiveSource
from podwhy.snapshot.source import FileSource
mode, arg = sys.argv[1], sys.argv[2]
source = LiveSource(kubeconfig=arg) if mode == "live" else FileSource([arg], complete=True)
t = time.perf_counter()
report = explain(ExplainRequest("default/target", "default", source))
wall = time.perf_counter() - t
print(json.dumps({"wall_s": wall, "verdict": report.verdict, "nodes": report.snapshot.nodes,
                  "pods": report.snapshot.pods, "requests": getattr(source, "requests_sent", 0),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _child(mode: str, arg: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, arg], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150000)
    parser.add_argument("--page-size", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dump, port_file, config = Path(tmp) / "dump.json", Path(tmp) / "port", Path(tmp) / "kubeconfig"
        write(build(args.nodes, args.pods), dump, "json")
        server = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from benchmarks.live import serve; from pathlib import Path; "
                "serve(Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))",
                str(dump),
                str(args.page_size),
                str(port_file),
            ],
        )
        try:
            while not port_file.exists() or not port_file.read_text():
                time.sleep(0.1)
            url = f"http://127.0.0.1:{port_file.read_text()}"
            config.write_text(
                json.dumps(
                    {
                        "apiVersion": "v1",
                        "kind": "Config",
                        "current-context": "bench",
                        "clusters": [{"name": "bench", "cluster": {"server": url}}],
                        "users": [{"name": "bench", "user": {"token": "x"}}],
                        "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}],
                    }
                )
            )
            live = _child("live", str(config))
            from urllib.request import urlopen

            with urlopen(f"{url}/stats") as response:
                stats = json.loads(response.read())
            offline = _child("offline", str(dump))
        finally:
            server.terminate()
            server.wait()
        size_mib = dump.stat().st_size / 2**20
    print(f"cluster:          {live['nodes']} nodes, {live['pods']} pods ({size_mib:,.0f} MiB as JSON)")
    print(
        f"live:             {live['wall_s']:.2f} s, {live['requests']} requests, peak {live['peak_rss_mib']:,.0f} MiB"
    )
    print(f"  server serving: {stats['serving_s']:.2f} s over {stats['requests']} requests")
    print(f"offline:          {offline['wall_s']:.2f} s, peak {offline['peak_rss_mib']:,.0f} MiB")
    print(f"live - offline:   {live['wall_s'] - offline['wall_s']:+.2f} s (target <= serving time)")
    print(f"verdicts:         live {live['verdict']}, offline {offline['verdict']}")
    return 0 if live["verdict"] == offline["verdict"] else 1


if __name__ == "__main__":
    sys.exit(main())
