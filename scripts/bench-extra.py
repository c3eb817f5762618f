#!/usr/bin/env python3
"""The two targets of issue 6 that run.py does not measure: flat memory and cold start.

Usage: bench-extra.py BENCH_DIR FEEDCRAWL OUT.json

- Flat memory: peak RSS of a 20-page and of a 2-page crawl (200 hits a page, 20 launch pages of
  20), feedserver.py without latency, 3 interleaved runs each; target: 20 pages within 1.25x.
- Cold start: wall time of `feedcrawl --help` and of a crawl of an empty feed (0 hits,
  0 launches), 10 runs each, median; target: under 50 ms each.

Prints a markdown section and writes the raw figures to OUT.json.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

bench_dir, feedcrawl, out_json = sys.argv[1:4]
work = tempfile.mkdtemp(prefix="feedcrawl-bench-extra-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
KEY = "bench-key"


def start_server(*flags):
    proc = subprocess.Popen(
        [sys.executable, os.path.join(bench_dir, "feedserver.py"), "--port", "0", "--seed", "1", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        sys.exit(f"bench-extra: feedserver did not start: {line!r}")
    return proc, line.split()[-1]


def reset_rate_limit(base):
    """POST /stats/reset: a fresh /api/ rate-limit window for the next run."""
    request = urllib.request.Request(base + "/stats/reset", data=b"", method="POST")
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=30).read()


def measure(argv, env=None):
    """(wall seconds, peak RSS KiB, exit status) of one run."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - started, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def crawl_argv(base, pages, out):
    return [feedcrawl, "--pages", str(pages), "--per-page", "200", "--out", out,
            "--pixabay-url", base + "/api/", "--launches-url", base + "/graphql",
            "--concurrency", "16", "--per-host", "16", "--quiet"]


env = dict(os.environ, PIXABAY_KEY=KEY)
results = {"flat": {}, "cold": {}}
try:
    server, base = start_server("--hits", "4000", "--hits-cap", "4000", "--launches", "400", "--latency-ms", "0")
    try:
        runs = {2: [], 20: []}
        for rep in range(3):
            for pages in (2, 20):
                out = os.path.join(work, f"flat-{pages}-{rep}")
                reset_rate_limit(base)
                wall, rss, code = measure(crawl_argv(base, pages, out), env)
                runs[pages].append({"wall": wall, "rss_kib": rss, "exit": code})
                shutil.rmtree(out, ignore_errors=True)
        results["flat"] = runs
    finally:
        server.terminate()
        server.wait()

    server, base = start_server("--hits", "0", "--launches", "0", "--latency-ms", "0")
    try:
        help_runs, empty_runs = [], []
        for rep in range(10):
            help_runs.append(measure([feedcrawl, "--help"])[::2])
            out = os.path.join(work, f"empty-{rep}")
            wall, _, code = measure(crawl_argv(base, 5, out), env)
            empty_runs.append((wall, code))
            shutil.rmtree(out, ignore_errors=True)
        results["cold"] = {"help": help_runs, "empty": empty_runs}
    finally:
        server.terminate()
        server.wait()
finally:
    shutil.rmtree(work, ignore_errors=True)

json.dump(results, open(out_json, "w"), indent=1)

mib = lambda kib: kib / 1024  # noqa: E731
rss2 = statistics.median(r["rss_kib"] for r in results["flat"][2])
rss20 = statistics.median(r["rss_kib"] for r in results["flat"][20])
flat_ok = all(r["exit"] == 0 for rs in results["flat"].values() for r in rs)
help_ms = statistics.median(w for w, _ in results["cold"]["help"]) * 1000
empty_ms = statistics.median(w for w, _ in results["cold"]["empty"]) * 1000
cold_ok = all(c == 0 for _, c in results["cold"]["help"] + results["cold"]["empty"])


def mark(ok):
    return "yes" if ok else "**no**"


print("### Flat memory and cold start (scripts/bench-extra.py)")
print()
print("feedserver.py without latency; flat memory: median of 3 interleaved runs (200 hits a page); "
      "cold start: median of 10 runs.")
print()
print("| measure | value | target (issue 6) |")
print("|---|---|---|")
print(f"| peak RSS, 2-page crawl | {mib(rss2):.1f} MiB | |")
print(f"| peak RSS, 20-page crawl | {mib(rss20):.1f} MiB ({rss20 / rss2:.2f}x the 2-page crawl) | "
      f"<= 1.25x: {mark(rss20 <= 1.25 * rss2 and flat_ok)} |")
print(f"| `feedcrawl --help` | {help_ms:.1f} ms | < 50 ms: {mark(help_ms < 50 and cold_ok)} |")
print(f"| crawl of an empty feed | {empty_ms:.1f} ms | < 50 ms: {mark(empty_ms < 50 and cold_ok)} |")
