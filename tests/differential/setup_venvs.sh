#!/usr/bin/env bash
# Creates the two Python environments the differential tools run in (developer tooling; the
# product, its build and CI never need Python). MXNet 1.9.1 and 1.6.0 are both the package
# "mxnet", so each gets its own venv. numpy < 1.24: both MXNets use np.bool and friends.
#   tests/differential/.venv-mxnet191   mxnet==1.9.1
#   tests/differential/.venv-mxnet160   mxnet==1.6.0
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-python3}
for spec in 191:1.9.1 160:1.6.0; do
    dir=.venv-mxnet${spec%%:*}
    version=${spec#*:}
    if [[ ! -x $dir/bin/python ]]; then
        "$python" -m venv "$dir"
    fi
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "mxnet==$version" "numpy<1.24" "requests"
    "$dir/bin/python" -c "import mxnet; print('$dir: mxnet', mxnet.__version__)"
done
