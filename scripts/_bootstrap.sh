# shellcheck shell=bash
# Sourced by scripts/run and scripts/test: make .venv match the requirements.
# Needs only python3 (3.11+); as root on Debian it also installs python3-venv.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FABRICDESIGN_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"

_die() { echo "error: $*" >&2; exit 1; }

_create_venv() {
  command -v "$PYTHON" >/dev/null || _die "$PYTHON not found; install Python 3.11 or set PYTHON=/path/to/python3.11"
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || _die "$PYTHON is $("$PYTHON" -V 2>&1); fabricdesign needs Python 3.11 or newer"
  # Debian ships ensurepip (which venv needs) apart from the interpreter.
  if ! "$PYTHON" -c 'import ensurepip' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "Installing Debian's python3-venv"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    else
      _die "$PYTHON cannot create virtualenvs; on Debian/Ubuntu run: sudo apt-get install python3-venv"
    fi
  fi
  echo "Creating $VENV"
  "$PYTHON" -m venv "$VENV" || { rm -rf "$VENV"; _die "could not create $VENV"; }
}

bootstrap_venv() {
  [ -x "$VENV/bin/python" ] || _create_venv
  # Reinstall only when a requirements file or the interpreter changed.
  local stamp="$VENV/.requirements.sha256" want
  want="$("$VENV/bin/python" - "$ROOT/requirements.txt" "$ROOT/requirements-dev.txt" <<'PY'
import hashlib, sys
h = hashlib.sha256(sys.version.encode())
for path in sys.argv[1:]:
    h.update(open(path, "rb").read())
print(h.hexdigest())
PY
)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "Installing requirements into $VENV (first run takes a minute)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$ROOT/requirements-dev.txt"
    echo "$want" >"$stamp"
  fi
  export PATH="$VENV/bin:$PATH"
  cd "$ROOT"
}
