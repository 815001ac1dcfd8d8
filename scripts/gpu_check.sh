#!/usr/bin/env bash
# One command on a machine with an NVIDIA GPU (about 8 minutes):
#   1. a fresh virtual environment (.venv-gpu) with xgrad's test extra, cupy for
#      the CUDA version found (nvidia-smi, else nvcc: cupy-cuda11x/12x/13x) and
#      torch with CUDA where a build installs (skipped with GPU_CHECK_TORCH=0);
#   2. the whole test suite on the cupy backend (XGRAD_TEST_BACKENDS=cupy);
#   3. benchmarks/gpu_peers.py (MLP, per-op, HVP, PINN, MAML, Hessian): xgrad on
#      cupy against torch CUDA, eager and torch.compile;
#   4. docs/gpu.md rewritten with both results.
# Usage: scripts/gpu_check.sh            (from anywhere; run it from a clean checkout)
# Env:   GPU_CHECK_TORCH=0 (no torch), GPU_CHECK_TEST_TIMEOUT (s, default 300),
#        GPU_CHECK_BENCH_TIMEOUT (s, default 180), GPU_CHECK_VENV (default .venv-gpu),
#        GPU_CHECK_VENV=none: no virtual environment and no downloads, for a machine
#        that can't reach PyPI but whose python3 already has cupy (and torch): the
#        pure-Python needs (array-api-compat, optree, ...) then come from
#        GPU_CHECK_WHEELS, a folder of wheels installed with --no-index.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${GPU_CHECK_VENV:-.venv-gpu}
TEST_TIMEOUT=${GPU_CHECK_TEST_TIMEOUT:-300}
BENCH_TIMEOUT=${GPU_CHECK_BENCH_TIMEOUT:-180}
say() { printf '\n== %s\n' "$*"; }
die() { printf 'gpu_check: %s\n' "$*" >&2; exit 1; }

# ---- the GPU and its CUDA version
command -v nvidia-smi >/dev/null 2>&1 || die "no nvidia-smi: this needs a machine with an NVIDIA GPU and its driver"
GPU=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -n 1) \
    || die "nvidia-smi found no GPU (is the driver loaded? is a device visible to this container?)"
[ -n "$GPU" ] || die "nvidia-smi lists no GPU"
CUDA=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9]*\.[0-9]*\).*/\1/p' | head -n 1)
if [ -z "$CUDA" ] && command -v nvcc >/dev/null 2>&1; then
    CUDA=$(nvcc --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9]*\).*/\1/p' | head -n 1)
fi
[ -n "$CUDA" ] || die "could not read the CUDA version (neither nvidia-smi nor nvcc reports one)"
MAJOR=${CUDA%%.*}
case "$MAJOR" in
    11) CUPY=cupy-cuda11x; TORCH_INDEX=https://download.pytorch.org/whl/cu118 ;;
    12) CUPY=cupy-cuda12x; TORCH_INDEX=https://download.pytorch.org/whl/cu126 ;;
    13) CUPY=cupy-cuda13x; TORCH_INDEX=https://download.pytorch.org/whl/cu130 ;;
    *) die "CUDA $CUDA: no cupy wheel for this version (cupy-cuda11x/12x/13x cover CUDA 11-13)" ;;
esac
say "GPU: $GPU; CUDA $CUDA (driver) -> $CUPY"

# ---- the environment
if [ "$VENV" = none ]; then
    say "no virtual environment: $(command -v python3)"
    if [ -n "${GPU_CHECK_WHEELS:-}" ]; then
        python3 -m pip install -q --no-index --no-deps --target /tmp/gpu_check_site "$GPU_CHECK_WHEELS"/*.whl \
            || die "could not install the wheels in $GPU_CHECK_WHEELS"
        export PYTHONPATH=/tmp/gpu_check_site:$ROOT${PYTHONPATH:+:$PYTHONPATH}
    else
        export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH}
    fi
    python3 -c "import numpy, array_api_compat, optree, pytest, hypothesis" \
        || die "python3 lacks xgrad's needs (numpy, array-api-compat, optree, pytest, hypothesis): pass them as wheels in GPU_CHECK_WHEELS"
    PY=python3
    GPU_CHECK_TORCH=${GPU_CHECK_TORCH:-present}
else
    say "virtual environment $VENV"
    python3 -m venv "$VENV"
    # shellcheck disable=SC1091
    . "$VENV/bin/activate"
    PY=python
    pip install -q --upgrade pip
    pip install -q -e ".[test]" "$CUPY"
fi
"$PY" -c "import cupy; n = cupy.cuda.runtime.getDeviceCount(); assert n > 0; print('cupy', cupy.__version__, 'devices:', n)" \
    || die "cupy is installed but sees no CUDA device (driver too old for $CUPY?)"
TORCH_NOTE="torch: not installed (GPU_CHECK_TORCH=0)"
if [ "${GPU_CHECK_TORCH:-1}" = present ]; then
    TORCH_NOTE=$("$PY" -c "import torch; print('torch', torch.__version__, 'CUDA available:', torch.cuda.is_available())" 2>/dev/null \
                 || echo "torch: not importable; the torch rows are missing")
elif [ "${GPU_CHECK_TORCH:-1}" != 0 ]; then
    if pip install -q torch --index-url "$TORCH_INDEX" || pip install -q torch; then
        TORCH_NOTE=$("$PY" -c "import torch; print('torch', torch.__version__, 'CUDA available:', torch.cuda.is_available())")
    else
        TORCH_NOTE="torch: no CUDA build installed (pip failed); the torch rows are missing"
    fi
fi
say "$TORCH_NOTE"
XDIST=()
if "$PY" -c "import xdist" 2>/dev/null || { [ "$VENV" != none ] && pip install -q pytest-xdist; }; then
    XDIST=(-n 8)
fi

# ---- the test suite on cupy
say "test suite on cupy (XGRAD_TEST_BACKENDS=cupy, at most ${TEST_TIMEOUT}s)"
OUT=$(mktemp -d)
set +e
XGRAD_TEST_BACKENDS=cupy timeout "$TEST_TIMEOUT" "$PY" -m pytest -q -p no:cacheprovider "${XDIST[@]}" \
    > "$OUT/tests.txt" 2>&1
TEST_RC=$?
set -e
tail -n 25 "$OUT/tests.txt"
TEST_SUMMARY=$(grep -E '(passed|failed|error)' "$OUT/tests.txt" | tail -n 1 || true)
[ "$TEST_RC" = 124 ] && TEST_SUMMARY="timed out after ${TEST_TIMEOUT}s; last line: $TEST_SUMMARY"

# ---- the benchmarks
say "benchmarks/gpu_peers.py (at most ${BENCH_TIMEOUT}s)"
set +e
timeout "$BENCH_TIMEOUT" "$PY" benchmarks/gpu_peers.py --md "$OUT/bench.md"
BENCH_RC=$?
set -e
[ -f "$OUT/bench.md" ] || echo "(the benchmarks wrote no table: exit status $BENCH_RC)" > "$OUT/bench.md"

# ---- docs/gpu.md
{
    echo "# GPU"
    echo
    echo "xgrad on cupy (CUDA) and on torch CUDA tensors, measured by \`scripts/gpu_check.sh\`"
    echo "on $(date -u +%Y-%m-%d): $GPU, CUDA $CUDA. Rerun that one command to refresh this page."
    echo
    echo "## Tests"
    echo
    echo "The whole suite with the \`xp\` fixture on cupy only (\`XGRAD_TEST_BACKENDS=cupy\`):"
    echo
    echo "    ${TEST_SUMMARY:-no summary line (exit status $TEST_RC)}"
    echo
    echo "## Benchmarks"
    echo
    echo "\`benchmarks/gpu_peers.py\`: the peers' workloads (sizes in its docstring), every result"
    echo "checked against the first row's before timing; median per call, the device"
    echo "synchronised after each call; \"first call\" includes torch.compile's compilation."
    echo
    cat "$OUT/bench.md"
} > docs/gpu.md
say "wrote docs/gpu.md (tests exit $TEST_RC, benchmarks exit $BENCH_RC); logs in $OUT"
[ "$TEST_RC" = 0 ] || exit "$TEST_RC"
