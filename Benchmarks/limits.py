"""Driver of Benchmarks/limits.sh: starts a fresh Hibi per scenario and measures its memory."""
import io, json, os, shutil, socket, subprocess, sys, threading, time, urllib.request, zipfile

HIBI, WORK, SIZE_MB = os.environ["HIBI"], os.environ["WORK"], int(os.environ["SIZE_MB"])
failures = []


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Server:
    def __init__(self, name):
        self.data = os.path.join(WORK, name)
        shutil.rmtree(self.data, ignore_errors=True); os.makedirs(self.data)
        env = dict(os.environ, HIBI_DATA_DIR=self.data, HIBI_LOG_LEVEL="error")
        subprocess.run([HIBI, "user", "create", "bench", "--password-stdin"], input=b"benchmark password", env=env, check=True,
                       stdout=subprocess.DEVNULL)
        self.token = subprocess.run([HIBI, "user", "token", "bench"], env=env, check=True, capture_output=True).stdout.decode().strip()
        self.port = free_port()
        self.process = subprocess.Popen([HIBI, "serve"], env=dict(env, HIBI_PORT=str(self.port)), stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(self.data, "server.log"), "w"))
        for _ in range(300):
            try:
                urllib.request.urlopen(self.url("/healthz"), timeout=1); break
            except Exception:
                time.sleep(0.1)
        time.sleep(1)
        self.idle_kb = status_kb(self.process.pid, "VmRSS")

    def url(self, path): return f"http://127.0.0.1:{self.port}{path}"

    def request(self, method, path, body=None, headers=None, timeout=600):
        req = urllib.request.Request(self.url(path), data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def api(self, method, path, body=None, content_type="application/json"):
        return self.request(method, path, body, {"Authorization": f"Bearer {self.token}", "Content-Type": content_type})

    def growth_mb(self): return (status_kb(self.process.pid, "VmHWM") - self.idle_kb) / 1024

    def stop(self):
        self.process.terminate(); self.process.wait(timeout=30)


def healthz_probe(server, stop, samples):
    while not stop.is_set():
        start = time.monotonic()
        try:
            server.request("GET", "/healthz", timeout=30)
        except Exception:
            pass
        samples.append(time.monotonic() - start)
        time.sleep(0.2)


def wait_for_job(server, job_id):
    while True:
        status, body = server.api("GET", f"/api/v1/health/imports/{job_id}")
        job = json.loads(body)
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.5)


def report(name, growth, bound, worst_healthz):
    print(f"{name}_peak_rss_growth: {growth:.0f} MB")
    print(f"{name}_healthz_max: {worst_healthz * 1000:.0f} ms")
    if growth > bound:
        failures.append(f"{name}: memory grew {growth:.0f} MB, bound {bound} MB")


def run(name, bound, action):
    server = Server(name)
    stop, samples = threading.Event(), []
    probe = threading.Thread(target=healthz_probe, args=(server, stop, samples)); probe.start()
    try:
        action(server)
    finally:
        stop.set(); probe.join()
        report(name, server.growth_mb(), bound, max(samples or [0]))
        server.stop()


def metadata_bomb(server):
    value = "x" * (1 << 20)
    xml = io.StringIO()
    xml.write('<?xml version="1.0"?>\n<HealthData locale="en_US">\n <Record type="HKQuantityTypeIdentifierStepCount" sourceName="W" '
              'unit="count" startDate="2024-05-01 08:00:00 +0900" endDate="2024-05-01 08:10:00 +0900" value="1">\n')
    for i in range(300):
        xml.write(f'  <MetadataEntry key="k{i}" value="{value}"/>\n')
    xml.write(" </Record>\n</HealthData>\n")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("apple_health_export/export.xml", xml.getvalue())
    print(f"metadata_bomb_zip_size: {len(archive.getvalue()) / 1024:.0f} KB")
    status, body = server.api("POST", "/api/v1/health/imports?name=export.zip", archive.getvalue(), "application/zip")
    job = wait_for_job(server, json.loads(body)["id"])
    if job["state"] != "failed" or not job.get("error"):
        failures.append(f"metadata_bomb: expected a failed job with a message, got {job}")


def import_200mb(server):
    path = os.path.join(WORK, f"export-{SIZE_MB}mb.xml")
    if not os.path.exists(path):
        with open(path, "w") as out:
            out.write('<?xml version="1.0"?>\n<HealthData locale="en_US">\n')
            written, minute = 0, 0
            while written < SIZE_MB << 20:
                minute += 3
                day, rest = divmod(minute, 1440)
                stamp = f"2020-01-01 00:00:00 +0900".replace("2020-01-01", f"20{20 + day // 365:02d}-{1 + (day % 365) // 31:02d}-{1 + (day % 365) % 28:02d}").replace("00:00:00", f"{rest // 60:02d}:{rest % 60:02d}:00")
                line = (f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" startDate="{stamp}" '
                        f'endDate="{stamp}" value="{minute % 170 + 5}"><MetadataEntry key="HKMetadataKeySyncVersion" value="2"/></Record>\n')
                out.write(line); written += len(line)
            out.write("</HealthData>\n")
    with open(path, "rb") as f:
        status, body = server.api("POST", "/api/v1/health/imports?name=export.xml", f.read(), "application/xml")
    job = wait_for_job(server, json.loads(body)["id"])
    print(f"import_200mb_records: {job['inserted'] + job['duplicates']} records")
    if job["state"] != "done":
        failures.append(f"import_200mb: {job}")


def anonymous_bodies(server):
    size = 256 << 20
    def send():
        sock = socket.create_connection(("127.0.0.1", server.port))
        head = (f"POST /diary/import HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\n"
                f"Content-Length: {size}\r\n\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.zip\"\r\n\r\n")
        sock.sendall(head.encode())
        chunk = b"A" * (1 << 20)
        sent = len(head)
        try:
            sock.settimeout(60)
            while sent < size:
                sock.sendall(chunk); sent += len(chunk)
        except OSError:
            pass  # the server answered and closed: nothing more to send
        sock.close()
    threads = [threading.Thread(target=send) for _ in range(3)]
    for t in threads: t.start()
    for t in threads: t.join()


run("metadata_bomb", 100, metadata_bomb)
run("import_200mb", 150, import_200mb)
run("anonymous_bodies", 50, anonymous_bodies)
if failures:
    print("bounds broken:\n  " + "\n  ".join(failures), file=sys.stderr)
    sys.exit(1)
