#!/usr/bin/env bash
# Creates the Python environments the differential tools run in (developer tooling; the
# product, its build and CI never need Python). MXNet 1.9.1 and 1.6.0 are both the package
# "mxnet", so each gets its own venv. numpy < 1.24: both MXNets use np.bool and friends.
# ONNX Runtime wants a newer numpy, so it gets a venv of its own as well.
#   tests/differential/.venv-mxnet191   mxnet==1.9.1
#   tests/differential/.venv-mxnet160   mxnet==1.6.0
#   tests/differential/.venv-ort        onnx, onnxruntime, numpy (onnx_runtime_check.py)
# Arguments pick some of them: setup_venvs.sh ort   (default: all three; also mxnet191, mxnet160)
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-python3}
wanted=" ${*:-mxnet191 mxnet160 ort} "
for spec in 191:1.9.1 160:1.6.0; do
    [[ $wanted == *" mxnet${spec%%:*} "* ]] || continue
    dir=.venv-mxnet${spec%%:*}
    version=${spec#*:}
    if [[ ! -x $dir/bin/python ]]; then
        "$python" -m venv "$dir"
    fi
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "mxnet==$version" "numpy<1.24" "requests"
    "$dir/bin/python" -c "import mxnet; print('$dir: mxnet', mxnet.__version__)"
done
if [[ $wanted == *" ort "* ]]; then
    dir=.venv-ort
    if [[ ! -x $dir/bin/python ]]; then
        "$python" -m venv "$dir"
    fi
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check onnx onnxruntime numpy
    "$dir/bin/python" -c "import onnx, onnxruntime, numpy; print('$dir: onnx', onnx.__version__, 'onnxruntime', onnxruntime.__version__, 'numpy', numpy.__version__)"
fi
