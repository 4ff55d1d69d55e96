#!/usr/bin/env bash
# Build llama.cpp's llama-server (only that target) from the pinned llama-cpp-python sdist, into a
# cache directory outside the repository; a second run finds the binary and returns at once.
# Prints the path of the binary on its last line. About 10 minutes on 2 cores when cold.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

mkdir -p "$BUILD_DIR"
exec 9>"$BUILD_DIR/.lock"
flock 9  # one build at a time on this machine; a second caller waits and then reuses it

if [ -x "$LLAMA_SERVER_BIN" ] && "$LLAMA_SERVER_BIN" --version >/dev/null 2>&1; then
  echo "llama-server: cached build" >&2
  echo "$LLAMA_SERVER_BIN"
  exit 0
fi

start=$(date +%s)
SDIST="$BUILD_DIR/llama_cpp_python-$LLAMA_PKG_VERSION.tar.gz"
if [ ! -f "$SDIST" ] || ! check_sha256 "$SDIST" "$LLAMA_PKG_SHA256" 2>/dev/null; then
  rm -f "$SDIST"
  echo "llama-server: downloading llama-cpp-python $LLAMA_PKG_VERSION sdist" >&2
  pip_download --no-deps --no-binary :all: -d "$BUILD_DIR" "llama-cpp-python==$LLAMA_PKG_VERSION"
fi
check_sha256 "$SDIST" "$LLAMA_PKG_SHA256"
dl_done=$(date +%s)

SRC="$BUILD_DIR/src"
if [ ! -f "$SRC/CMakeLists.txt" ]; then
  rm -rf "$SRC" "$BUILD_DIR/extract"
  mkdir -p "$BUILD_DIR/extract"
  tar xzf "$SDIST" -C "$BUILD_DIR/extract"
  mv "$BUILD_DIR/extract/llama_cpp_python-$LLAMA_PKG_VERSION/vendor/llama.cpp" "$SRC"
  rm -rf "$BUILD_DIR/extract"
fi

# GGML_NATIVE=OFF with explicit AVX2/FMA: a native build on this CPU enables AMX and the server
# crashes on the first decode. No curl/OpenSSL (no downloads at run time), no UI download.
JOBS="${TOOLWIRE_LLAMA_JOBS:-2}"
GEN=(); command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)  # else cmake's default (Unix Makefiles)
for tool in cmake c++; do
  command -v "$tool" >/dev/null 2>&1 || { echo "llama-server: $tool is needed to build (apt-get install cmake g++)" >&2; exit 1; }
done
cmake -S "$SRC" -B "$BUILD_DIR/build" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
  -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
  -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=OFF >"$BUILD_DIR/cmake.log" 2>&1 \
  || { tail -30 "$BUILD_DIR/cmake.log" >&2; exit 1; }
cmake --build "$BUILD_DIR/build" --target llama-server -j "$JOBS" >"$BUILD_DIR/build.log" 2>&1 \
  || { tail -40 "$BUILD_DIR/build.log" >&2; exit 1; }
mkdir -p "$BUILD_DIR/bin"
cp "$BUILD_DIR/build/bin/llama-server" "$LLAMA_SERVER_BIN.tmp"
mv "$LLAMA_SERVER_BIN.tmp" "$LLAMA_SERVER_BIN"
end=$(date +%s)
echo "llama-server: built in $((end - dl_done))s (download $((dl_done - start))s)" >&2
echo "$LLAMA_SERVER_BIN"
