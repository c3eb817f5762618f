#!/usr/bin/env python3
"""The two targets of issue 6 that run.py does not measure: flat memory and cold start.

Usage: bench-extra.py BENCH_DIR FEEDCRAWL OUT.json
       bench-extra.py --report OUT.json     (print the section again from saved figures)

- Flat memory: peak RSS of a 20-page and of a 2-page crawl (200 hits a page, 20 launch pages of
  20), feedserver.py without latency, 3 interleaved runs each; target: 20 pages within 1.25x.
- Cold start: wall time of `feedcrawl --help` and of a crawl of an empty feed (0 hits,
  0 launches), 10 runs each, median; target: under 50 ms each.

- Archive growth (issues 11 and 20): `../shared/bench/scale.sh` with IMAGE_BYTES=600 at each size
  of FEEDCRAWL_BENCH_SCALE (comma-separated item counts; default "20000,200000";
  "20000,200000,1000000" adds 1,000,000 items, about 6 minutes a run; "0" skips): a cold crawl
  and a warm rerun each, FEEDCRAWL_BENCH_SCALE_REPS times (default 3), the sizes interleaved,
  medians; targets: peak RSS, cold and warm, at most 1.5x the smallest size's at up to 10x its
  items (issue 11) and under 64 MiB at every size (1,000,000 items: issue 20), and the warm
  rerun's wall time at most 1.2x the growth in items (12x for 10x).

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

KEY = "bench-key"
SCALE_DEFAULT = "20000,200000"
RSS_LIMIT_MIB = 64


def scale_sizes_from(text):
    """FEEDCRAWL_BENCH_SCALE's item counts, ascending, without repeats; "0" (or nothing) is none."""
    try:
        sizes = sorted({int(n) for n in text.replace(" ", "").split(",") if n})
    except ValueError:
        sys.exit(f"bench-extra: FEEDCRAWL_BENCH_SCALE={text!r}: want item counts such as 20000,200000,1000000")
    return [n for n in sizes if n > 0]


scale_sizes = scale_sizes_from(os.environ.get("FEEDCRAWL_BENCH_SCALE", SCALE_DEFAULT))
scale_reps = max(1, int(os.environ.get("FEEDCRAWL_BENCH_SCALE_REPS", "3")))

if len(sys.argv) == 3 and sys.argv[1] == "--report":
    bench_dir = feedcrawl = work = None
    out_json = sys.argv[2]
elif len(sys.argv) == 4:
    bench_dir, feedcrawl, out_json = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="feedcrawl-bench-extra-",
                            dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
else:
    sys.exit(__doc__.split("\n\n")[1])


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


def measure_all():
    """Every figure of the section into `results` (the servers and scale.sh runs it needs)."""
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


if work:
    try:
        measure_all()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    json.dump(results, open(out_json, "w"), indent=1)
else:  # --report: JSON made the sizes and page counts strings
    saved = json.load(open(out_json))
    results = {"flat": {int(k): v for k, v in saved["flat"].items()}, "cold": saved["cold"],
               "scale": {int(k): v for k, v in saved["scale"].items()}}
    scale_sizes = sorted(results["scale"])
    scale_reps = max((len(v) for v in results["scale"].values()), default=0)

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


if scale_sizes:
    small = scale_sizes[0]
    figures = {n: medians(results["scale"][n]) for n in scale_sizes}
    names = [f"{n:,}" for n in scale_sizes]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    chosen = ",".join(str(n) for n in scale_sizes)
    how = ("add 1,000,000 with `FEEDCRAWL_BENCH_SCALE=20000,200000,1000000 scripts/bench`, about 6 minutes a "
           "run more" if chosen == SCALE_DEFAULT else f"sizes from `FEEDCRAWL_BENCH_SCALE={chosen} scripts/bench`")
    print()
    print("### Archive growth (../shared/bench/scale.sh)")
    print()
    print(f"`IMAGE_BYTES=600 ../shared/bench/scale.sh .build/release/feedcrawl N` for N = {listed} ({how}): "
          "N Pixabay hits in pages of 200, images from nginx; a cold crawl, then a warm rerun over the same OUT "
          f"(which fetches nothing). GNU time; median of {scale_reps} runs each, the sizes interleaved"
          + (f"; a larger size's cells end with its ratio to the {names[0]}-item figure." if len(names) > 1 else "."))
    print()
    print("| run | " + " | ".join(f"{name} items" for name in names) + " | target (issues 11 and 20) |")
    print("|---|" + "---|" * len(names) + "---|")
    for run in ("cold", "warm"):
        have = [n for n in scale_sizes if run in figures[n]]
        ok = len(have) == len(scale_sizes) and all(figures[n][run]["exit"] == 0 for n in have)
        rss = {n: figures[n][run]["rss_kib"] / 1024 for n in have}
        wall = {n: figures[n][run]["wall"] for n in have}
        def cell(n, text, ratio):
            if n not in have:
                return f"missing ({figures[n]['verify']})"
            return text if n == small or small not in have else f"{text}, {ratio:.2f}x"
        near = [n for n in have if small < n <= 10 * small]
        targets = []
        if near and small in have:
            targets.append(f"<= 1.5x up to 10x the items: {mark(ok and all(rss[n] <= 1.5 * rss[small] for n in near))}")
        targets.append(f"< {RSS_LIMIT_MIB} MiB: {mark(ok and all(v < RSS_LIMIT_MIB for v in rss.values()))}")
        print(f"| {run}: peak RSS | "
              + " | ".join(cell(n, f"{rss.get(n, 0):.1f} MiB", rss.get(n, 0) / rss.get(small, 1)) for n in scale_sizes)
              + " | " + "; ".join(targets) + " |")
        target = ""
        if run == "warm" and len(scale_sizes) > 1:
            linear = ok and small in have and all(wall[n] <= 1.2 * n / small * wall[small] for n in have)
            target = f"<= 1.2x the growth in items (12x for 10x): {mark(linear)}"
        print(f"| {run}: wall (CPU) | "
              + " | ".join(cell(n, f"{wall.get(n, 0):.2f} s ({figures[n].get(run, {}).get('cpu', 0):.2f})",
                                wall.get(n, 0) / wall.get(small, 1)) for n in scale_sizes)
              + f" | {target} |")
    print("| `manifest --verify` | " + " | ".join(figures[n]["verify"] for n in scale_sizes) + " | |")
