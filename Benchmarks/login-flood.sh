#!/usr/bin/env bash
# The owner's sign-in under an anonymous flood (issue 28 item 7), against one server on SQLite.
# Before the bounds, one client with 8 connections posting fresh unknown names made the owner's sign-in
# take 3.5-4.9 s instead of 0.56 s (a debug build): every unknown name cost a decoy bcrypt at cost 12,
# all at once. Now the decoys wait in a bounded queue behind the owner's hash (BcryptGate) and a token
# bucket per address refuses fresh names beyond a burst (429).
#   owner_sign_in_alone:        POST /login of the owner, nothing else running (median of SAMPLES)
#   owner_sign_in_under_flood:  the same while FLOOD_CONNECTIONS keep posting fresh names
#   flood_attempts / flood_refused_429 / flood_unauthorized_401: what the flood got back
#   bcrypt_decoy / bcrypt_account: hashes the server computed during the flood (its /metrics)
# Usage: Benchmarks/login-flood.sh   (HIBI_BENCH_BIN=.build/debug/hibi to try a debug build;
#   FLOOD_CONNECTIONS=8, FLOOD_SECONDS=20, SAMPLES=5; BENCH_SIZE=smoke: 3 s of flood, one sample, one round)
source "$(dirname "$0")/lib/common.sh"

FLOOD_CONNECTIONS=${FLOOD_CONNECTIONS:-8}
FLOOD_SECONDS=${FLOOD_SECONDS:-$(by_size 20 60 3)}
SAMPLES=${SAMPLES:-$(by_size 5 5 1)}
is_count "$FLOOD_CONNECTIONS" && is_count "$FLOOD_SECONDS" && is_count "$SAMPLES" || die "counts must be positive whole numbers"
ensure_apt curl python3
HIBI=$(hibi_bin)

for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  DATA=$(bench_tmpdir)
  PORT=$(free_port)
  # A fresh server per round (the token bucket and throttles start empty); production bcrypt cost (12).
  echo "owner password 1" | HIBI_DATA_DIR="$DATA" "$HIBI" user create owner --admin --password-stdin >/dev/null
  HIBI_DATA_DIR="$DATA" HIBI_PORT="$PORT" HIBI_LOG_LEVEL=error HIBI_RESOURCES_DIR="$PWD/Resources" \
    HIBI_VENDOR_DIR="$PWD/vendor" "$HIBI" serve >"$DATA/server.log" 2>&1 &
  SERVER=$!
  bench_bg $SERVER
  wait_http "http://127.0.0.1:$PORT/healthz" || { tail -20 "$DATA/server.log" >&2; die "Hibi did not start"; }
  log "round $ROUND: $SAMPLES sign-ins alone, then under a flood of $FLOOD_CONNECTIONS connections for ${FLOOD_SECONDS}s"
  PORT=$PORT ROUND=$ROUND FLOOD_CONNECTIONS=$FLOOD_CONNECTIONS FLOOD_SECONDS=$FLOOD_SECONDS SAMPLES=$SAMPLES \
    PYTHONPATH="$BENCH_LIB" python3 - <<'PY'
import http.client, os, re, statistics, threading, time, urllib.parse, uuid
from stats import record

port, rnd = int(os.environ["PORT"]), int(os.environ["ROUND"])
connections, seconds, samples = int(os.environ["FLOOD_CONNECTIONS"]), int(os.environ["FLOOD_SECONDS"]), int(os.environ["SAMPLES"])

def login_page(conn):
    """A signed-out browser's form: its CSRF cookie and token."""
    conn.request("GET", "/login")
    answer = conn.getresponse()
    body = answer.read().decode()
    cookies = "; ".join(c.split(";")[0] for c in answer.headers.get_all("Set-Cookie") or [])
    token = re.search(r'name="_csrf" value="([^"]+)"', body).group(1)
    return cookies, token

def post_login(conn, cookies, token, name, password):
    form = urllib.parse.urlencode({"_csrf": token, "username": name, "password": password})
    conn.request("POST", "/login", body=form, headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookies})
    answer = conn.getresponse()
    answer.read()
    return answer.status

def owner_sign_in():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    cookies, token = login_page(conn)
    start = time.monotonic()
    status = post_login(conn, cookies, token, "owner", "owner password 1")
    elapsed = time.monotonic() - start
    conn.close()
    assert status == 302, f"the owner's sign-in answered {status}"
    return elapsed

def bcrypts():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    found = {"account": 0.0, "decoy": 0.0}
    for kind, value in re.findall(r'^hibi_bcrypt_total\{priority="(\w+)"\} (\S+)$', text, re.M):
        found[kind] = float(value)
    return found

alone = [owner_sign_in() for _ in range(samples)]
record("owner_sign_in_alone", statistics.median(alone), "s", rnd)

stop = time.monotonic() + seconds
counts = {"attempts": 0, 401: 0, 429: 0, "other": 0}
lock = threading.Lock()
def flood():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    cookies, token = login_page(conn)
    while time.monotonic() < stop:
        try:
            status = post_login(conn, cookies, token, "x" + uuid.uuid4().hex[:20], "guess")
        except (http.client.HTTPException, OSError):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            status = "other"
        with lock:
            counts["attempts"] += 1
            counts[status if status in (401, 429) else "other"] += 1
    conn.close()

before = bcrypts()
threads = [threading.Thread(target=flood) for _ in range(connections)]
for t in threads: t.start()
time.sleep(min(2, seconds / 4))  # the flood under way
under = []
# At least one sign-in under the flood, however short it is (a smoke run uses FLOOD_SECONDS=3).
while len(under) < samples and (not under or time.monotonic() < stop - 1):
    under.append(owner_sign_in())
for t in threads: t.join()
after = bcrypts()
record("owner_sign_in_under_flood", statistics.median(under), "s", rnd)
record("owner_sign_in_under_flood_max", max(under), "s", rnd)
record("flood_attempts", counts["attempts"], "requests", rnd)
record("flood_refused_429", counts[429], "requests", rnd)
record("flood_unauthorized_401", counts[401], "requests", rnd)
record("flood_other", counts["other"], "requests", rnd)
record("bcrypt_decoy", after["decoy"] - before["decoy"], "hashes", rnd)
record("bcrypt_account", after["account"] - before["account"], "hashes", rnd)
PY
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
done
report --ratio "slowdown=owner_sign_in_under_flood/owner_sign_in_alone:x"
