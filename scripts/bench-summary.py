#!/usr/bin/env python3
"""Adds feedcrawl's ratios to curl and to the physical floor, and the targets of issues 6 and 11, to a
run.py table. Usage: bench-summary.py BENCH_DIR results.json table.md out.md out.json [docs/performance.md]
(that file's text between <!-- bench:begin --> and <!-- bench:end --> is replaced by out.md without
run.py's table, which stays in out.md, and a link to it)."""
import json
import os
import shutil
import statistics
import sys

bench_dir, results_path, table_path, out_md, out_json = sys.argv[1:6]
readme = sys.argv[6] if len(sys.argv) > 6 else None
sys.path.insert(0, bench_dir)
import run  # noqa: E402  (../shared/bench/run.py: the workloads and the floor formula)

data = json.load(open(results_path))
runs, meta = data["runs"], data["meta"]


def med(peer, workload, key):
    values = [r[key] for r in runs if r["peer"] == peer and r["workload"] == workload and not r["skipped"]]
    return statistics.median(values) if values else None


def image_requests(r):
    """Image requests the servers answered in one run (feedserver's /img routes, nginx's count)."""
    routes = r["server"]["requests"]
    return sum(sum(v.values()) for k, v in routes.items() if k not in ("api", "graphql")) + r.get("nginx_requests", 0)


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def mark(ok):
    return "-" if ok is None else ("yes" if ok else "**no**")


rows = []
workloads = [w for w in run.WORKLOADS if any(r["workload"] == w for r in runs)]
for w in workloads:
    fc = [r for r in runs if r["peer"] == "feedcrawl" and r["workload"] == w and not r["skipped"]]
    if not fc:
        continue
    wall, cpu, rss = med("feedcrawl", w, "wall"), med("feedcrawl", w, "cpu"), med("feedcrawl", w, "rss")
    cwall, ccpu = med("curl", w, "wall"), med("curl", w, "cpu")
    floor = None
    if not run.WORKLOADS[w].get("warm"):
        floor = run.floor_s(w, meta["expected"][w])[1] or None  # 0 without latency (W5, W6)
    wall_curl = wall / cwall if cwall else None
    cpu_curl = cpu / ccpu if ccpu else None
    wall_floor = wall / floor if floor else None
    correct = all(r["correct"] == r["expected"] and r["corrupt"] == 0 for r in fc)
    exits = all(r["rc"] == 0 for r in fc)
    checks = []
    if w == "W1":
        checks = [("wall <= 1.0x curl", wall_curl is not None and wall_curl <= 1.0),
                  ("wall <= 1.15x floor", wall_floor is not None and wall_floor <= 1.15),
                  ("CPU <= 1.5x curl", cpu_curl is not None and cpu_curl <= 1.5), ("RSS <= 24 MiB", rss <= 24)]
    elif w == "W2":
        w1 = med("feedcrawl", "W1", "wall")
        checks = [("0 image requests", all(image_requests(r) == 0 for r in fc)),
                  ("wall <= 0.2x own W1", w1 is not None and wall <= 0.2 * w1)]
    elif w == "W3":
        checks = [("CPU <= 1.2x curl", cpu_curl is not None and cpu_curl <= 1.2), ("RSS <= 32 MiB", rss <= 32)]
    elif w == "W4":
        too_many_429 = any(r["server"]["requests"].get("api", {}).get("429", 0) > 1 for r in fc)
        checks = [("all correct, exit 0", correct and exits), ("<= one 429", not too_many_429)]
    elif w == "W5":
        checks = [("wall <= 1.0x curl", wall_curl is not None and wall_curl <= 1.0),
                  ("CPU <= 1.2x curl", cpu_curl is not None and cpu_curl <= 1.2), ("RSS <= 32 MiB", rss <= 32)]
    elif w == "W6":
        checks = [("wall <= 1.0x curl", wall_curl is not None and wall_curl <= 1.0),
                  ("CPU <= 1.2x curl", cpu_curl is not None and cpu_curl <= 1.2)]
    if w != "W4":
        checks.append(("all correct, exit 0", correct and exits))
    rows.append([w, fmt(wall), fmt(cwall), fmt(wall_curl), fmt(floor), fmt(wall_floor), fmt(cpu), fmt(ccpu),
                 fmt(cpu_curl), f"{rss:.0f}",
                 "; ".join(f"{name}: {mark(ok)}" for name, ok in checks)])

head = ["workload", "feedcrawl wall s", "curl wall s", "wall / curl", "floor s", "wall / floor",
        "feedcrawl CPU s", "curl CPU s", "CPU / curl", "feedcrawl peak RSS MiB", "targets (issues 6 and 11)"]
lines = ["### feedcrawl against curl and the floor", "",
         f"Medians of {meta['reps']} interleaved runs from one `run.py` invocation; nproc {meta['nproc']}; "
         f"output under {meta['workdir']}. Floor: run.py's crawl floor (requests / 16 x latency, at least the "
         "launch cursor chain).", "",
         "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
lines += ["| " + " | ".join(r) + " |" for r in rows]
# Sections measured outside run.py, in order: bench-extra.py's (flat memory, cold start, archive
# growth) and bench-s3.py's (W7), as FILE[:FILE...]; a file that is missing or empty is left out.
for extra in os.environ.get("FEEDCRAWL_BENCH_EXTRA", "").split(os.pathsep):
    if extra and os.path.exists(extra) and open(extra).read().strip():
        lines += [""] + open(extra).read().rstrip("\n").splitlines()
# docs/performance.md keeps the figures above; run.py's own table (every peer) stays in out_md only.
readme_text = "\n".join(lines + ["", "run.py's own table (every peer and workload, the floor, the versions) is in "
                                  "[scripts/bench-results/latest.md](scripts/bench-results/latest.md#runpys-table); "
                                  "past before-and-after measurements are in "
                                  "[scripts/bench-results/history.md](scripts/bench-results/history.md)."]) + "\n"
lines += ["", "### run.py's table", ""]
lines += open(table_path).read().rstrip("\n").splitlines()
text = "\n".join(lines) + "\n"
open(out_md, "w").write(text)
shutil.copyfile(results_path, out_json)

if readme:
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    doc = open(readme).read()
    if begin in doc and end in doc:
        head_part, rest = doc.split(begin, 1)
        _, tail_part = rest.split(end, 1)
        open(readme, "w").write(head_part + begin + "\n" + readme_text + end + tail_part)
