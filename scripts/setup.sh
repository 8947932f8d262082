#!/usr/bin/env bash
# Installs everything Hibi needs on a fresh Debian machine, skipping what is already there.
# Usage: scripts/setup.sh [run|test]   (test adds PostgreSQL, Chromium and the Python test tools)
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-run}"

APT_RUN=(libsqlite3-dev ffmpeg libjs-chart.js libjs-leaflet libjs-leaflet.markercluster unzip librsvg2-bin)
# Fonts let headless Chromium draw Japanese text and emoji in the screenshots we look at.
APT_TEST=(postgresql chromium chromium-driver wrk fonts-noto-cjk fonts-noto-color-emoji nginx)

missing=()
want=("${APT_RUN[@]}")
[ "$MODE" = test ] && want+=("${APT_TEST[@]}")
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python tools for tests and for unpacking pinned wheels live in a project venv, never in the system.
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
PY=.venv/bin/python
if [ "$MODE" = test ]; then
  REQ=scripts/requirements-test.txt
  STAMP=.venv/.test-requirements
  if ! cmp -s "$REQ" "$STAMP" 2>/dev/null; then
    echo "setup: installing Python test tools"
    $PY -m pip install -q --disable-pip-version-check -r "$REQ"
    cp "$REQ" "$STAMP"
  fi
fi

# Third-party web assets (never committed): Pico.css from its PyPI wheel, Chart.js and Leaflet from Debian.
VENDOR=vendor/web
mkdir -p "$VENDOR"
if [ ! -f "$VENDOR/pico/pico.min.css" ]; then
  echo "setup: fetching Pico.css"
  T=$(mktemp -d)
  $PY -m pip download -q --disable-pip-version-check --no-deps -d "$T" lona-picocss==0.4.4
  echo "8d640dbe393a650f3e90b9339dff0b4cae4087fc9e2ba917386d6f51d92071a1  $T/lona_picocss-0.4.4-py3-none-any.whl" | sha256sum -c --quiet -
  mkdir -p "$VENDOR/pico"
  $PY - "$T" "$VENDOR/pico" <<'PYEOF'
import sys, zipfile, glob, os
wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.endswith("dist/pico/css/pico.min.css") or name.endswith("dist/pico/LICENSE.md"):
            target = os.path.join(sys.argv[2], os.path.basename(name))
            with open(target, "wb") as out:
                out.write(z.read(name))
PYEOF
  rm -rf "$T"
  test -f "$VENDOR/pico/pico.min.css" || { echo "setup: pico.min.css not found in the wheel" >&2; exit 1; }
fi
[ -e "$VENDOR/chart.js" ] || ln -s /usr/share/javascript/chart.js "$VENDOR/chart.js"
[ -e "$VENDOR/leaflet" ] || ln -s /usr/share/javascript/leaflet "$VENDOR/leaflet"

# The face engine's models and native libraries.
if [ -x scripts/setup-face.sh ]; then
  scripts/setup-face.sh
fi
echo "setup: done"
