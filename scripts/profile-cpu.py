#!/usr/bin/env python3
"""Where feedcrawl's CPU goes, per image (issue 36): a sampled profile of run.py's workloads.

Usage: scripts/profile-cpu.py [--workloads W5,W6] [--peers feedcrawl,curl] [--bin FEEDCRAWL ...] [--reps 3]
                              [--freq 1999] [--results DIR]
       scripts/profile-cpu.py --report DIR        (print the table again from a saved DIR/profile.json)

Runs `../shared/bench/run.py --reps N --peers P --workloads W` once per workload and peer (feedcrawl
and curl, the peer its targets are set against), with the peer started under
`perf record -e cpu-clock -g` (a software clock: no hardware counters are
needed, so it works in a VM; frame-pointer call chains, which the Swift compiler keeps; the kernel's
own frames come with them). Every sample is then put in one bucket:

- kernel samples by the system call or fault they are in: sockets (send, receive, poll, connect),
  files (open, write, fsync, rename, stat, close of a file), wake-ups (futex, sleeps), memory
  (page faults, mmap, brk), other (process start and exit, timer interrupts);
- user samples by the first frame, from the leaf up, that says whose work it is: libcurl and the
  libraries under it (OpenSSL, nghttp2, zlib); the Swift runtime's retain, release and allocation
  (and malloc); Swift concurrency, Dispatch and pthread locks; else our own code by the folder of
  Sources/ that declares the type the frame belongs to (the map is read from Sources/, so a new
  file needs no edit here). Frames of the standard library, Foundation and libc's string functions
  are passed over, so `Array.append` inside the journal counts as the journal's.

Prints a markdown table: CPU ms, microseconds per image and share of each bucket per workload and
peer (the mean of the `--reps` runs, default 3: one run's buckets move by 10-20 % on these
machines), then the CPU per thread. DIR (default: a new folder under $TMPDIR) keeps the perf data,
run.py's results and profile.json. perf comes from Debian's linux-perf (scripts/deps --bench).
The profile runs add perf's own overhead (a few per cent); time with run.py, not with this.
"""
import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "bench"

# Buckets, in the order the table lists them.
BUCKETS = [
    "libcurl, TLS, HTTP/2 (user space)",
    "kernel: sockets (send, receive, poll, connect)",
    "kernel: files (open, write, fsync, rename, stat)",
    "kernel: wake-ups (futex, sleep)",
    "kernel: memory (page faults, mmap, brk)",
    "kernel: other (start, exit, interrupts)",
    "body checks (SHA-256, image structure)",
    "HTTP engine (ours: CurlLoop, transfers, throttle)",
    "pipeline bookkeeping (scheduler, committer, delivery)",
    "Swift concurrency, Dispatch, locks (hand-offs)",
    "storage (ours: backend, staged files, file I/O)",
    "feed decoding (pages, JSON)",
    "crawl control (sources, pages, items)",
    "journal, archive and manifest",
    "contact sheet, metrics, summary",
    "progress and logging",
    "start-up, configuration, command line",
    "Swift runtime (retain, release, allocation)",
    "libc and Foundation (caller unknown)",
    "other",
]

# Folders of Sources/ (longest prefix wins) -> bucket.
FOLDERS = {
    "FeedCrawlHTTP": "HTTP engine (ours: CurlLoop, transfers, throttle)",
    "FeedCrawlStorage": "storage (ours: backend, staged files, file I/O)",
    "FeedCrawlSupport": "storage (ours: backend, staged files, file I/O)",
    "FeedCrawlKit/Pipeline": "pipeline bookkeeping (scheduler, committer, delivery)",
    "FeedCrawlKit/Cache": "storage (ours: backend, staged files, file I/O)",
    "FeedCrawlKit/Feeds": "feed decoding (pages, JSON)",
    "FeedCrawlKit/Crawler": "crawl control (sources, pages, items)",
    "FeedCrawlKit/Manifest": "journal, archive and manifest",
    "FeedCrawlKit/Repository": "journal, archive and manifest",
    "FeedCrawlKit/Report": "contact sheet, metrics, summary",
    "FeedCrawlKit/Progress": "progress and logging",
    "FeedCrawlKit/Logging": "progress and logging",
    "FeedCrawlKit/Config": "start-up, configuration, command line",
    "FeedCrawlKit/Inspection": "start-up, configuration, command line",
    "FeedCrawlKit": "crawl control (sources, pages, items)",
    "feedcrawl": "start-up, configuration, command line",
    "DemoFeed": "other",
}
# Types whose work is a bucket of its own, wherever they are declared.
TYPES = {
    "SHA256": "body checks (SHA-256, image structure)",
    "ImageStructure": "body checks (SHA-256, image structure)",
    "ImageValidation": "body checks (SHA-256, image structure)",
    "CRC32": "body checks (SHA-256, image structure)",
    "BodyDigest": "body checks (SHA-256, image structure)",
    "ImageFormat": "body checks (SHA-256, image structure)",
    "Lock": "Swift concurrency, Dispatch, locks (hand-offs)",
    "AsyncLock": "Swift concurrency, Dispatch, locks (hand-offs)",
}
OUR_MODULES = ("FeedCrawlKit", "FeedCrawlHTTP", "FeedCrawlStorage", "FeedCrawlSupport", "feedcrawl", "DemoFeed")

CURL_DSO = re.compile(r"lib(curl|ssl|crypto|nghttp2|z|brotli\w*|zstd|idn2|psl|unistring|ssh2|rtmp|ldap|lber|gssapi\w*|krb5\w*|k5crypto|sasl2)\.so")
RUNTIME = re.compile(r"^(swift_(retain|release|allocObject|deallocObject|deallocClassInstance|bridgeObject|unknownObject|"
                     r"beginAccess|endAccess|isUniquelyReferenced|array(Init|Destroy|Assign)|getGenericMetadata|"
                     r"dynamicCast|conformsToProtocol|getWitnessTable|allocBox|deallocBox|initStackObject|"
                     r"setDeallocating|slowAlloc|slowDealloc|weak|unowned|once|getSingletonMetadata|"
                     r"checkMetadataState|nonatomic|initStaticObject|allocEmptyBox|projectBox|getEnumCaseMultiPayload|"
                     r"storeEnumTagMultiPayload|getTypeByMangledName|instantiateConcreteTypeFromMangledName)\w*|"
                     r"_?_?(libc_)?(malloc|free|calloc|realloc|cfree|posix_memalign|aligned_alloc)|_int_(malloc|free|realloc)|"
                     r"malloc_consolidate|unlink_chunk|tcache_\w+|sysmalloc|_swift_release_dealloc|_swift_retain_\w*|"
                     r"swift::\w*(HeapObject|Metadata|RefCount)\w*)")
HANDOFF = re.compile(r"^(swift_(task|job|continuation|asyncLet|taskGroup|Concurrency|defaultActor|executor)\w*|"
                     r"swift::(Task|Job|Async|Default|Continuation|Executor|Concurrency)\w*|"
                     r"_?dispatch_\w+|_dispatch\w*|pthread_(mutex|cond|rwlock|once|spin)\w*|__pthread_\w*|"
                     r"__lll_\w+|___pthread\w*|__GI___pthread\w*|sem_\w+|__new_sem\w*|futex\w*|"
                     r"\$ss(5Mutex|13ManagedBuffer|CheckedContinuation)\w*)")
TRANSPARENT_C = re.compile(r"^(__)?(mem(cpy|move|set|cmp|chr|rchr)|str\w+|wcs\w+|__mem\w+|__str\w+|__GI_\w+)")
SOCKET_CALLS = {"sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "poll", "ppoll", "epoll_wait",
                "epoll_pwait", "epoll_ctl", "select", "pselect6", "connect", "socket", "setsockopt", "getsockopt",
                "getsockname", "getpeername", "socketpair", "shutdown", "accept", "accept4", "bind", "listen"}
WAKE_CALLS = {"futex", "nanosleep", "clock_nanosleep", "sched_yield", "eventfd2"}
MEMORY_CALLS = {"mmap", "munmap", "brk", "madvise", "mprotect", "mremap"}
FILE_CALLS = {"openat", "open", "write", "pwrite64", "writev", "read", "pread64", "readv", "fsync", "fdatasync",
              "renameat", "renameat2", "rename", "newfstatat", "fstat", "statx", "stat", "lstat", "close",
              "unlinkat", "unlink", "mkdirat", "mkdir", "getdents64", "lseek", "ftruncate", "fallocate",
              "linkat", "link", "flock", "fcntl", "sync_file_range", "fchown", "fchmod", "faccessat", "faccessat2",
              "readlinkat", "sendfile64", "copy_file_range", "utimensat", "fchownat", "fchmodat", "syncfs"}


def type_folders():
    """Type name -> folder of Sources/ that declares it (struct, class, enum, actor, protocol)."""
    found = {}
    decl = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|"
                      r"indirect|nonisolated)\s+)*(?:struct|class|enum|actor|protocol)\s+([A-Z]\w*)", re.M)
    for path in (ROOT / "Sources").rglob("*.swift"):
        folder = str(path.parent.relative_to(ROOT / "Sources"))
        for name in decl.findall(path.read_text(errors="replace")):
            found.setdefault(name, folder)
    return found


def folder_bucket(folder):
    best = None
    for prefix, bucket in FOLDERS.items():
        if (folder == prefix or folder.startswith(prefix + "/")) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, bucket)
    return best[1] if best else "other"


def strip_nested(text, open_, close):
    out, depth = [], 0
    for ch in text:
        if ch == open_:
            depth += 1
        elif ch == close and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


OWNER = re.compile(r"\b(" + "|".join(OUR_MODULES) + r")\.([A-Za-z_]\w*)")


class Classifier:
    def __init__(self, demangled):
        self.types = type_folders()
        self.demangled = demangled
        self.memo = {}

    def frame(self, sym, dso):
        """The bucket a user-space frame settles, or None to look at its caller."""
        key = (sym, dso)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = result = self._frame(sym, dso)
        return result

    def _frame(self, sym, dso):
        base = os.path.basename(dso)
        if CURL_DSO.search(base):
            return "libcurl, TLS, HTTP/2 (user space)"
        if sym.startswith("fc_sha256") or "sha256" in sym.lower() and not sym.startswith("$s"):
            return "body checks (SHA-256, image structure)"
        if RUNTIME.match(sym):
            return "Swift runtime (retain, release, allocation)"
        if HANDOFF.match(sym):
            return "Swift concurrency, Dispatch, locks (hand-offs)"
        if TRANSPARENT_C.match(sym):
            return None
        name = self.demangled.get(sym, sym)
        if name.startswith("$s") or sym.startswith("$s"):
            plain = strip_nested(strip_nested(name, "<", ">"), "(", ")")
            match = OWNER.search(plain)
            if match:
                type_name = match.group(2)
                if type_name in TYPES:
                    return TYPES[type_name]
                if type_name in self.types:
                    return TYPES.get(type_name) or folder_bucket(self.types[type_name])
                return folder_bucket(match.group(1))
            return None  # the standard library or Foundation: the caller's work
        if sym.startswith("fc_") or sym.startswith("curl"):
            return "HTTP engine (ours: CurlLoop, transfers, throttle)"
        return None

    def sample(self, frames):
        """frames: [(sym, dso)] from the leaf up. Returns the bucket of one sample."""
        if frames and frames[0][1] == "[kernel.kallsyms]":
            return self.kernel(frames)
        for sym, dso in frames:
            if dso == "[kernel.kallsyms]":
                continue
            bucket = self.frame(sym, dso)
            if bucket:
                return bucket
        leaf = os.path.basename(frames[0][1]) if frames else ""
        if leaf.startswith("libc") or leaf.startswith("libFoundation") or "feedcrawl" in leaf:
            return "libc and Foundation (caller unknown)"
        return "other"

    @staticmethod
    def kernel(frames):
        """A kernel sample by its system call: the kernel's __x64_sys_ frame, or (where the kernel
        inlined its dispatch) the libc wrapper that made the call, the first user frame."""
        names = [sym for sym, dso in frames if dso == "[kernel.kallsyms]"]
        call = None
        for sym in names:
            if "page_fault" in sym:
                return "kernel: memory (page faults, mmap, brk)"
            m = re.match(r"^__(?:x64|ia32|x32)_sys_(\w+)$", sym) or re.match(r"^__do_sys_(\w+)$", sym)
            if m:
                call = m.group(1)
                break
        if call is None:
            user = next((sym for sym, dso in frames if dso != "[kernel.kallsyms]"), "")
            call = re.sub(r"^(_|GI_|libc_)+|_nocancel$", "", user)
            call = {"send": "sendto", "recv": "recvfrom", "open64": "openat", "fstatat64": "newfstatat",
                    "futex_abstimed_wait_common": "futex", "lll_lock_wait": "futex", "lll_lock_wake": "futex",
                    "pwrite": "pwrite64", "pread": "pread64", "fxstat64": "fstat"}.get(call, call)
            if call.startswith("futex") or call.startswith("pthread_cond") or call.startswith("lll_"):
                call = "futex"
        if call in SOCKET_CALLS:
            return "kernel: sockets (send, receive, poll, connect)"
        if call in WAKE_CALLS:
            return "kernel: wake-ups (futex, sleep)"
        if call in MEMORY_CALLS:
            return "kernel: memory (page faults, mmap, brk)"
        if call in FILE_CALLS:
            if any(re.match(r"^(sock_|tcp_|inet_|unix_|__sock|sk_|__sys_sendto|__sys_recvfrom)", s) for s in names):
                return "kernel: sockets (send, receive, poll, connect)"
            return "kernel: files (open, write, fsync, rename, stat)"
        if any(s in ("net_rx_action", "__napi_poll", "tcp_v4_rcv", "ip_rcv") for s in names):
            return "kernel: sockets (send, receive, poll, connect)"
        return "kernel: other (start, exit, interrupts)"


def demangle_all(symbols):
    swift_syms = sorted(s for s in symbols if s.startswith("$s"))
    if not swift_syms:
        return {}
    tool = shutil.which("swift-demangle") or shutil.which("swift")
    cmd = [tool] if tool.endswith("swift-demangle") else [tool, "demangle"]
    out = subprocess.run(cmd + ["--compact"], input="\n".join(swift_syms) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return dict(zip(swift_syms, out)) if len(out) == len(swift_syms) else {}


HEADER = re.compile(r"^(?P<comm>.+?)\s+(?P<tid>\d+)\s+(?P<period>\d+)\s+cpu-clock")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(?P<sym>.*?)(?:\+0x[0-9a-f]+)?\s+\((?P<dso>[^)]*)\)\s*$")


def read_samples(data):
    """[(comm, period_ns, [(sym, dso)])] from one perf.data file."""
    text = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,tid,period,event,ip,sym,dso",
                           "--no-demangle"], capture_output=True, text=True, check=True).stdout
    samples, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            m = HEADER.match(line)
            if m:
                cur = (m.group("comm"), int(m.group("period")), [])
                samples.append(cur)
            continue
        m = FRAME.match(line)
        if m and cur is not None:
            cur[2].append((m.group("sym"), m.group("dso")))
    return samples


def profile(workload, peer, args, outdir, binary, label):
    """One run.py run of `peer` on `workload` under perf; its buckets and threads."""
    wdir = outdir / f"{workload}-{label}"
    wdir.mkdir(parents=True, exist_ok=True)
    under_perf = "#!/bin/sh\nexec perf record -q -e cpu-clock -F %d -g -o %s/perf.$$.data -- %s \"$@\"\n"
    env = dict(os.environ)
    if peer == "feedcrawl":
        wrapper = wdir / "feedcrawl-under-perf"
        wrapper.write_text(under_perf % (args.freq, wdir, binary))
        env["FEEDCRAWL"] = str(wrapper)
    else:  # curl: peers/curl.sh runs `curl` from PATH
        (wdir / "bin").mkdir(exist_ok=True)
        wrapper = wdir / "bin" / "curl"
        wrapper.write_text(under_perf % (args.freq, wdir, shutil.which("curl")))
        env["PATH"] = f"{wdir / 'bin'}:{env['PATH']}"
    wrapper.chmod(0o755)
    for old in wdir.glob("perf.*.data"):
        old.unlink()
    subprocess.run([sys.executable, str(BENCH / "run.py"), "--reps", str(args.reps), "--peers", peer, "--workloads",
                    workload, "--results", str(wdir / "run")], env=env, check=True, stdout=sys.stderr)
    runs = [r for r in json.loads((wdir / "run" / "results.json").read_text())["runs"]
            if r["peer"] == peer and r["workload"] == workload]
    for run in runs:
        if run.get("rc") != 0 or run.get("correct") != run.get("expected"):
            sys.exit(f"profile: {workload}: {peer} exited {run.get('rc')} with {run.get('correct')}/{run.get('expected')}"
                     f" correct; see {wdir / 'run' / 'logs'}")
    datas = sorted(wdir.glob("perf.*.data"))
    buckets, threads = collections.Counter(), collections.Counter()
    for data in datas:
        samples = read_samples(data)
        classify = Classifier(demangle_all({sym for _, _, frames in samples for sym, _ in frames}))
        for comm, period, frames in samples:
            buckets[classify.sample(frames)] += period
            threads[re.sub(r"-?\d+$", "", comm)] += period
    scale = 1e6 * len(datas)  # ns -> ms, the mean of the runs
    return dict(workload=workload, peer=label, images=runs[0]["expected"], runs=len(datas),
                wall=statistics.median(r["wall"] for r in runs), cpu=statistics.median(r["cpu"] for r in runs),
                buckets={k: v / scale for k, v in buckets.items()}, threads={k: v / scale for k, v in threads.items()})


def report(results):
    lines = []
    names = [f"{r['workload']} {r.get('peer', 'feedcrawl')}" for r in results]
    lines.append("| where the CPU goes | " + " | ".join(f"{w} ms | µs/image | share" for w in names) + " |")
    lines.append("|---|" + "---|---|---|" * len(names))
    totals = {id(r): sum(r["buckets"].values()) for r in results}
    for bucket in BUCKETS:
        if not any(r["buckets"].get(bucket) for r in results):
            continue
        cells = []
        for r in results:
            ms = r["buckets"].get(bucket, 0.0)
            cells.append(f"{ms:.0f} | {1000 * ms / r['images']:.1f} | {100 * ms / totals[id(r)]:.1f} %")
        lines.append(f"| {bucket} | " + " | ".join(cells) + " |")
    cells = [f"**{totals[id(r)]:.0f}** | **{1000 * totals[id(r)] / r['images']:.1f}** | 100 %" for r in results]
    lines.append("| **sampled CPU in all** | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| run | images | wall s (median, with perf) | CPU s (median, GNU time, with perf) | sampled CPU s (mean) "
                 "| per thread (sampled ms, mean) |")
    lines.append("|---|---|---|---|---|---|")
    for r in results:
        per = ", ".join(f"{k} {v:.0f}" for k, v in sorted(r["threads"].items(), key=lambda kv: -kv[1]))
        lines.append(f"| {r['workload']} {r.get('peer', 'feedcrawl')} | {r['images']} | {r['wall']:.2f} | {r['cpu']:.2f} | "
                     f"{totals[id(r)] / 1000:.2f} | {per} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default="W5,W6")
    p.add_argument("--peers", default="feedcrawl,curl", help="feedcrawl, curl or both (default: both)")
    p.add_argument("--bin", action="append", help="feedcrawl to profile (default: build the release binary as "
                   "scripts/bench does); given twice or more, each is profiled and named by its file name")
    p.add_argument("--freq", type=int, default=1999, help="samples a second a CPU (default 1999)")
    p.add_argument("--reps", type=int, default=3, help="runs of each peer on each workload, averaged (default 3)")
    p.add_argument("--results", type=Path, help="where the perf data and profile.json go (default: a new temp dir)")
    p.add_argument("--report", type=Path, help="print the table of a saved DIR/profile.json")
    args = p.parse_args()
    if args.report:
        print(report(json.loads((args.report / "profile.json").read_text())))
        return
    if not (BENCH / "run.py").exists():
        print(f"profile: {BENCH / 'run.py'} not found; the benchmark kit lives next to this repository.", file=sys.stderr)
        return
    if not shutil.which("perf"):
        sys.exit("profile: perf not found; scripts/deps --bench installs linux-perf")
    binaries = [os.path.abspath(b) for b in args.bin or []]
    if not binaries:
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "feedcrawl"],
                       cwd=ROOT, check=True, stdout=sys.stderr)
        binaries = [str(ROOT / ".build" / "release" / "feedcrawl")]
    outdir = args.results or Path(tempfile.mkdtemp(prefix="feedcrawl-profile-"))
    outdir.mkdir(parents=True, exist_ok=True)
    runs = []  # (peer, binary, label)
    for peer in args.peers.split(","):
        if peer == "feedcrawl":
            for binary in binaries:
                runs.append((peer, binary, "feedcrawl" if len(binaries) == 1 else os.path.basename(binary)))
        else:
            runs.append((peer, None, peer))
    results = [profile(w, peer, args, outdir, binary, label) for w in args.workloads.split(",") for peer, binary, label in runs]
    (outdir / "profile.json").write_text(json.dumps(results, indent=1))
    print(report(results))
    print(f"\n(perf data, run.py's logs and profile.json in {outdir})", file=sys.stderr)


if __name__ == "__main__":
    main()
