#!/usr/bin/env bash
# Regenerates the README's screenshots from the real application (its --screenshot option grabs the
# window once the conversion is drawn). Offscreen: no display needed.
#   scripts/screenshots.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
app="$build/app/ampstudio"
out=docs/screenshots
testdata=../shared/testdata/mxnet
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
# A private settings location, so that the user's window layout does not leak into the pictures.
export XDG_CONFIG_HOME
XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT

"$app" --size 1500x900 --zoom 1 --select fc2 --screenshot "$out/mlp.png"
"$app" --size 1500x900 --zoom 0.8 --select fire3_squeeze1x1 --screenshot "$out/squeezenet.png" \
    "$testdata/squeezenet_v1.1-symbol.json"
"$app" --size 1500x900 --screenshot "$out/squeezenet-overview.png" "$testdata/squeezenet_v1.1-symbol.json"
# The precision debugger: the small CNN (real MXNet parameters) measured on seeded random inputs, the
# converted view coloured by error.
"$app" --size 1600x1000 --zoom 1 --select conv2 --measure --screenshot "$out/precision.png" \
    resources/examples/small-cnn-symbol.json
# The precision debugger on an ONNX model: torchvision's ResNet-18 exported with random weights by
# tests/bench/precision_search_peer.py (46 MB, not in the repository), measured on seeded inputs.
resnet18=${AMS_RESNET18_ONNX:-/tmp/ams-precision-peer/resnet18.onnx}
if [ -f "$resnet18" ]; then
    "$app" --size 1600x1000 --zoom 0.9 --select /layer1/layer1.0/conv1/Conv --measure \
        --screenshot "$out/onnx-precision.png" "$resnet18"
fi
# Grouping by name scope: issue 24's 100k-operator graph with scoped names (written by
# bench_workspace, one node gathering every unread tensor) at first open, one box per block; then
# with block1 and its unit3 opened.
scoped=$(mktemp -d)
"$build/tests/bench/bench_workspace" --repeats 1 --sizes "" --real off --scoped 100000 --write-synthetic "$scoped" > /dev/null
"$app" --size 1500x900 --zoom 0.8 --select block3 --screenshot "$out/grouped.png" "$scoped/scoped-100000-symbol.json"
"$app" --size 1500x900 --zoom 0.8 --open-scope block1 --open-scope block1_unit3 --select block1_unit4 \
    --screenshot "$out/grouped-open.png" "$scoped/scoped-100000-symbol.json"
rm -rf "$scoped"
mkdir -p "$XDG_CONFIG_HOME/AMP Studio"
# The training monitor once the MLP has trained three epochs on Fashion-MNIST with float16 master
# weights from a loss scale of 2^24 (the back-off shows at the start of the loss-scale chart).
if [ -d /usr/share/datasets/fashion-mnist ]; then
    printf '[training]\nmodel=original\nstartFrom=init\nprecision=fp16-master\nscaler=pytorch\ninitScaleLog2=24\ngrowthInterval=2000\ndataset=fashion-mnist\nbatchSize=64\nepochs=3\nlearningRate=0.05\n' \
        > "$XDG_CONFIG_HOME/AMP Studio/AMP Studio.conf"
    "$app" --size 1600x1000 --train --screenshot "$out/training.png" "$testdata/mlp-symbol.json"
fi
# The dark theme, as Edit → Preferences sets it.
printf '[preferences]\ntheme=dark\n' > "$XDG_CONFIG_HOME/AMP Studio/AMP Studio.conf"
"$app" --size 1500x900 --zoom 1 --select fc2 --screenshot "$out/mlp-dark.png"
echo "wrote $(ls "$out"/*.png | tr '\n' ' ')"
