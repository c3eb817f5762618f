#!/usr/bin/env python3
"""Instructions per image, counted (issue 36): one run.py run of a workload under callgrind.

Usage: scripts/count-instructions.py [--workload W5] [--bin FEEDCRAWL ...] [--top 20] [--results DIR]
       scripts/count-instructions.py --report DIR        (print the table again from DIR/instructions.json)

`scripts/profile-cpu.py` samples time, and its buckets move by 10-20 % between runs on these
machines: too much to judge a change worth a few per cent. This counts instead:
`valgrind --tool=callgrind` counts every instruction the crawl executes, the same for the same
binary and inputs whatever else the machine is doing, so two builds compare to the instruction.
What it cannot see: time in the kernel (system calls, page faults: perf's table has them), cache
misses, and waiting. Under valgrind the CPU has no SHA extensions, so SHA-256 runs the portable
code (about 60 % of the count on W5); the table leaves those instructions out and says how many
there were, since the machine the crawl runs on hashes with the SHA extensions (perf: ~7 us an
image).

Each binary (default: the release build, `swift build -c release --static-swift-stdlib`) crawls
`run.py`'s workload once (one rep, the run checked as run.py checks it; about 2.5 minutes for W5's
20,367 images, the server and nginx unslowed). Prints instructions per image in all and the
functions with the largest self counts (per image, demangled), side by side for each binary.
DIR (default: a new folder under $TMPDIR) keeps the callgrind files and instructions.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "bench"
SHA_PORTABLE = "compressPortable"


def count(binary, label, workload, outdir):
    wdir = outdir / f"{workload}-{label}"
    wdir.mkdir(parents=True, exist_ok=True)
    for old in wdir.glob("callgrind.*"):
        old.unlink()
    wrapper = wdir / "feedcrawl-under-callgrind"
    wrapper.write_text(f"#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file={wdir}/callgrind.%p "
                       f"{binary} \"$@\" 2>>{wdir}/valgrind.log\n")
    wrapper.chmod(0o755)
    env = dict(os.environ, FEEDCRAWL=str(wrapper))
    subprocess.run([sys.executable, str(BENCH / "run.py"), "--reps", "1", "--peers", "feedcrawl", "--workloads",
                    workload, "--results", str(wdir / "run")], env=env, check=True, stdout=sys.stderr)
    run = json.loads((wdir / "run" / "results.json").read_text())["runs"][0]
    if run.get("rc") != 0 or run.get("correct") != run.get("expected"):
        sys.exit(f"count-instructions: {workload}: exited {run.get('rc')} with {run.get('correct')}/"
                 f"{run.get('expected')} correct; see {wdir / 'run'}")
    # The crawl is the largest file (run.py also asks the binary for --version).
    data = max(wdir.glob("callgrind.*"), key=lambda p: p.stat().st_size)
    text = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", str(data)], capture_output=True,
                          text=True, check=True).stdout
    total = int(re.search(r"([\d,]+) \(100\.0+%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    # The function list: "<count> (<share>)  <file>:<function> [<object>]", once per function.
    listing = text.split("file:function", 1)[1].split("\n", 2)[2].split("\n\n", 1)[0]
    functions = {}
    for line in listing.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(?:\S*?:)?(.+?)(?: \[([^\]]*)\])?$", line)
        if m:
            name = m.group(2)
            if name.startswith("0x") and m.group(3):  # a library's unnamed function: say whose
                name = f"{Path(m.group(3)).name} {name}"
            functions[name] = functions.get(name, 0) + int(m.group(1).replace(",", ""))
    sha = sum(v for k, v in functions.items() if SHA_PORTABLE in k)
    names = [k for k in functions if SHA_PORTABLE not in k]
    shown = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                           capture_output=True, text=True).stdout.splitlines()
    readable = {}
    for raw, nice in zip(names, shown):
        readable[nice] = readable.get(nice, 0) + functions[raw]
    return dict(label=label, workload=workload, images=run["expected"], total=total, sha=sha,
                functions=readable, data=str(data))


def report(results, top):
    images = results[0]["images"]
    print(f"Instructions per image, callgrind, {results[0]['workload']} ({images} images), one run each; "
          "SHA-256's portable code (what valgrind's CPU runs) left out of 'the rest'.\n")
    print("| | " + " | ".join(r["label"] for r in results) + " |")
    print("|---|" + "---|" * len(results))
    rows = [("all instructions", lambda r: r["total"]), ("SHA-256 (portable, under valgrind only)", lambda r: r["sha"]),
            ("**the rest**", lambda r: r["total"] - r["sha"])]
    for name, value in rows:
        print(f"| {name} | " + " | ".join(f"{value(r) / r['images']:,.0f}" for r in results) + " |")
    if len(results) > 1:
        base = results[0]["total"] - results[0]["sha"]
        print("| the rest, against the first | " + " | ".join(
            f"{(r['total'] - r['sha']) / base:.3f}x" for r in results) + " |")
    print(f"\nThe {top} largest self counts (instructions per image):\n")
    ranked = sorted({k for r in results for k in r["functions"]},
                    key=lambda k: -max(r["functions"].get(k, 0) for r in results))[:top]
    print("| function | " + " | ".join(r["label"] for r in results) + " |")
    print("|---|" + "---|" * len(results))
    for name in ranked:
        shown = name if len(name) <= 90 else name[:87] + "..."
        print(f"| `{shown}` | " + " | ".join(f"{r['functions'].get(name, 0) / r['images']:,.0f}" for r in results) + " |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", default="W5")
    p.add_argument("--bin", action="append", help="feedcrawl to count (default: build the release binary); "
                   "give it twice to compare two builds")
    p.add_argument("--top", type=int, default=20, help="functions listed (default 20)")
    p.add_argument("--results", type=Path, help="where the callgrind files and instructions.json go")
    p.add_argument("--report", type=Path, help="print the table of a saved DIR/instructions.json")
    args = p.parse_args()
    if args.report:
        report(json.loads((args.report / "instructions.json").read_text()), args.top)
        return
    if not (BENCH / "run.py").exists():
        sys.exit(f"count-instructions: {BENCH / 'run.py'} not found (the benchmark kit lives next to this repository)")
    for tool in ("valgrind", "callgrind_annotate", "swift-demangle"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            sys.exit(f"count-instructions: {tool} not found (valgrind: Debian's valgrind; swift-demangle: the toolchain)")
    binaries = args.bin
    if not binaries:
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "feedcrawl"],
                       cwd=ROOT, check=True, stdout=sys.stderr)
        binaries = [str(ROOT / ".build" / "release" / "feedcrawl")]
    outdir = args.results or Path(tempfile.mkdtemp(prefix="feedcrawl-instructions-"))
    outdir.mkdir(parents=True, exist_ok=True)
    names = [Path(b).name for b in binaries]
    labels = names if len(set(names)) == len(names) else [f"{i + 1}: {n}" for i, n in enumerate(names)]
    results = [count(os.path.abspath(b), label, args.workload, outdir) for b, label in zip(binaries, labels)]
    (outdir / "instructions.json").write_text(json.dumps(results))
    report(results, args.top)
    print(f"\n(callgrind files and instructions.json in {outdir})")


if __name__ == "__main__":
    main()
