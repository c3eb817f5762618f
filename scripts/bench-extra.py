#!/usr/bin/env python3
"""The two targets of issue 6 that run.py does not measure: flat memory and cold start.

Usage: bench-extra.py BENCH_DIR FEEDCRAWL OUT.json

- Flat memory: peak RSS of a 20-page and of a 2-page crawl (200 hits a page, 20 launch pages of
  20), feedserver.py without latency, 3 interleaved runs each; target: 20 pages within 1.25x.
- Cold start: wall time of `feedcrawl --help` and of a crawl of an empty feed (0 hits,
  0 launches), 10 runs each, median; target: under 50 ms each.

- Archive growth (issue 11): `../shared/bench/scale.sh` with IMAGE_BYTES=600 at 20,000 and at
  200,000 items (FEEDCRAWL_BENCH_SCALE="N1,N2" for other sizes, "0" to skip): a cold crawl and a
  warm rerun each, 3 times (FEEDCRAWL_BENCH_SCALE_REPS), medians; targets: peak RSS at the
  larger size at most 1.5x the smaller, cold and warm,
  every figure under 64 MiB, and the warm rerun's wall time at most 12x (for 10x the items).

Prints a markdown section and writes the raw figures to OUT.json.
"""
import re
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
results = {"flat": {}, "cold": {}, "scale": {}}
scale_sizes = [int(n) for n in os.environ.get("FEEDCRAWL_BENCH_SCALE", "20000,200000").split(",") if int(n) > 0]
scale_reps = max(1, int(os.environ.get("FEEDCRAWL_BENCH_SCALE_REPS", "3")))
SCALE_LINE = re.compile(r"^(cold|warm): wall ([\d.]+) s, user ([\d.]+) s, sys ([\d.]+) s, maxrss (\d+) KiB, exit (\d+)")


def scale(n):
    """scale.sh's cold and warm figures for n items, and its verify line."""
    proc = subprocess.run(["bash", os.path.join(bench_dir, "scale.sh"), feedcrawl, str(n)],
                          env=dict(os.environ, IMAGE_BYTES="600"), capture_output=True, text=True)
    runs = {}
    for line in proc.stdout.splitlines():
        m = SCALE_LINE.match(line)
        if m:
            runs[m[1]] = {"wall": float(m[2]), "cpu": float(m[3]) + float(m[4]), "rss_kib": int(m[5]), "exit": int(m[6])}
    runs["verify"] = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-300:]
    runs["status"] = proc.returncode
    return runs
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
    # A warm rerun of 20,000 items takes under a second: one run is at the mercy of the
    # machine's moods, so each size runs `scale_reps` times, the sizes interleaved.
    for rep in range(scale_reps):
        for n in scale_sizes:
            print(f"bench-extra: scale.sh {n} (IMAGE_BYTES=600), run {rep + 1} of {scale_reps}", file=sys.stderr)
            results["scale"].setdefault(n, []).append(scale(n))
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

if len(scale_sizes) >= 2:
    small, large = scale_sizes[0], scale_sizes[-1]
    def medians(runs):
        """The median of each figure over a size's runs; every run's exit status counts."""
        out = {"verify": runs[-1]["verify"]}
        for run in ("cold", "warm"):
            have = [r[run] for r in runs if run in r]
            if len(have) < len(runs):
                continue
            out[run] = {k: statistics.median(h[k] for h in have) for k in ("wall", "cpu", "rss_kib")}
            out[run]["exit"] = max(h["exit"] for h in have)
        return out
    a, b = medians(results["scale"][small]), medians(results["scale"][large])
    print()
    print("### Archive growth (../shared/bench/scale.sh)")
    print()
    print(f"`IMAGE_BYTES=600 ../shared/bench/scale.sh .build/release/feedcrawl N` for N = {small:,} and {large:,}: "
          "N Pixabay hits in pages of 200, images from nginx; a cold crawl, then a warm rerun over the same OUT "
          f"(which fetches nothing). GNU time; median of {scale_reps} runs each, the sizes interleaved.")
    print()
    print(f"| run | {small:,} items | {large:,} items | ratio | target (issue 11) |")
    print("|---|---|---|---|---|")
    ok = all(r.get(k, {}).get("exit") == 0 for r in (a, b) for k in ("cold", "warm"))
    growth = large / small
    for run in ("cold", "warm"):
        if run not in a or run not in b:
            print(f"| {run} | missing | missing | | **no** ({a.get('verify')!r} / {b.get('verify')!r}) |")
            continue
        ra, rb = a[run]["rss_kib"] / 1024, b[run]["rss_kib"] / 1024
        print(f"| {run}: peak RSS | {ra:.1f} MiB | {rb:.1f} MiB | {rb / ra:.2f}x | "
              f"<= 1.5x and < 64 MiB: {mark(rb <= 1.5 * ra and max(ra, rb) < 64 and ok)} |")
        wa, wb = a[run]["wall"], b[run]["wall"]
        target = f"<= {12 * growth / 10:g}x: {mark(wb <= 1.2 * growth * wa and ok)}" if run == "warm" else ""
        print(f"| {run}: wall (CPU) | {wa:.2f} s ({a[run]['cpu']:.2f}) | {wb:.2f} s ({b[run]['cpu']:.2f}) | {wb / wa:.2f}x | {target} |")
    print(f"| `manifest --verify` | {a['verify']} | {b['verify']} | | |")
