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
# The dark theme, as Edit → Preferences sets it.
mkdir -p "$XDG_CONFIG_HOME/AMP Studio"
printf '[preferences]\ntheme=dark\n' > "$XDG_CONFIG_HOME/AMP Studio/AMP Studio.conf"
"$app" --size 1500x900 --zoom 1 --select fc2 --screenshot "$out/mlp-dark.png"
echo "wrote $(ls "$out"/*.png | tr '\n' ' ')"
