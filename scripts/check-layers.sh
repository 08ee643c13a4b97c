#!/usr/bin/env bash
# The layers DESIGN.md draws, checked on every include: engine/ (no Qt) <- models/ (no QtWidgets)
# <- widgets/ <- app/. Every quoted include is resolved as the compiler would (beside the file, then
# each layer's include root) and must land in the file's own layer or one below it; engine/ includes
# no Qt header and models/ no QtWidgets header. Prints each offending include and exits 1.
#
#   scripts/check-layers.sh [ROOT]    check the tree at ROOT (default: this checkout)
#   scripts/check-layers.sh --self-test    plant one violation of each rule and check each is caught
set -euo pipefail

# The layer of a file: engine=0, models=1, widgets=2, app=3.
layer_rank() {
    case "$1" in
        engine) echo 0 ;; models) echo 1 ;; widgets) echo 2 ;; app) echo 3 ;; *) echo -1 ;;
    esac
}

# QtWidgets' class headers, from the installed Qt when there is one, else the common ones.
qtwidgets_headers() {
    local dir
    for dir in /usr/include/x86_64-linux-gnu/qt6/QtWidgets /usr/include/aarch64-linux-gnu/qt6/QtWidgets \
               /usr/include/qt6/QtWidgets; do
        if [[ -d "$dir" ]]; then
            find "$dir" -maxdepth 1 -type f -name 'Q[A-Z]*' ! -name '*.h' -printf '%f\n'
            return
        fi
    done
    printf '%s\n' QApplication QWidget QMainWindow QDialog QLabel QPushButton QComboBox QSpinBox QLineEdit \
        QTreeView QTableView QListView QGraphicsView QGraphicsScene QMenu QAction QUndoView QStyle QLayout \
        QBoxLayout QVBoxLayout QHBoxLayout QGridLayout QFormLayout QSplitter QTabWidget QMessageBox QFileDialog
}

check_tree() {
    local root=$1 failures=0
    local widgets_re
    widgets_re="^($(qtwidgets_headers | sort -u | paste -sd '|'))$"
    local include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])([^>"]+)[>"]'
    local layer file line number header resolved target rank target_rank
    for layer in engine models widgets app; do
        [[ -d "$root/$layer" ]] || continue
        rank=$(layer_rank "$layer")
        while IFS= read -r -d '' file; do
            number=0
            while IFS= read -r line; do
                number=$((number + 1))
                [[ "$line" =~ $include_re ]] || continue
                header=${BASH_REMATCH[2]}
                local where="${file#"$root"/}:$number"
                if [[ "${BASH_REMATCH[1]}" == "<" ]]; then
                    local name=${header#QtWidgets/}
                    if [[ $layer == engine && "$header" =~ ^Q[A-Za-z]+(/|$) ]]; then
                        echo "$where: includes <$header>: engine/ includes no Qt (it builds without it)"
                        failures=$((failures + 1))
                    elif [[ $layer == models && ( "$header" == QtWidgets/* || "$name" =~ $widgets_re ) ]]; then
                        echo "$where: includes <$header>: models/ includes no QtWidgets header (views live in widgets/)"
                        failures=$((failures + 1))
                    fi
                    continue
                fi
                # Quoted: beside the file first, then each layer's include root, as the build's -I order.
                resolved=""
                for target in "$(dirname "$file")" "$root/engine" "$root/models" "$root/widgets" "$root/app"; do
                    if [[ -f "$target/$header" ]]; then
                        resolved=$(realpath "$target/$header")
                        break
                    fi
                done
                [[ -n "$resolved" ]] || continue  # generated (moc, ui) or a system header in quotes
                target=${resolved#"$(realpath "$root")"/}
                target_rank=$(layer_rank "${target%%/*}")
                if ((target_rank > rank)); then
                    echo "$where: includes \"$header\" ($target): $layer/ must not depend on ${target%%/*}/"
                    failures=$((failures + 1))
                fi
            done <"$file"
        done < <(find "$root/$layer" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)
    done
    if ((failures > 0)); then
        echo "check-layers: $failures include(s) break the layering (engine <- models <- widgets <- app)" >&2
        return 1
    fi
    echo "check-layers: engine/ (no Qt) <- models/ (no QtWidgets) <- widgets/ <- app/: every include respects it"
}

self_test() {
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    mkdir -p "$tmp"/{engine/amp,models,widgets,app}
    printf '#pragma once\n' >"$tmp/engine/amp/conversion.h"
    printf '#pragma once\n#include "amp/conversion.h"\n#include <QObject>\n' >"$tmp/models/settings.h"
    printf '#pragma once\n#include "settings.h"\n#include <QWidget>\n' >"$tmp/widgets/view.h"
    printf '#pragma once\n#include "view.h"\n' >"$tmp/app/window.h"
    check_tree "$tmp" >/dev/null || { echo "self-test: a clean tree was refused" >&2; return 1; }
    local planted expected output
    while IFS='|' read -r planted expected; do
        cp -r "$tmp" "$tmp.case"
        printf '%s\n' "${planted#*:}" >>"$tmp.case/${planted%%:*}"
        if output=$(check_tree "$tmp.case" 2>&1); then
            echo "self-test: not caught: ${planted}" >&2
            rm -rf "$tmp.case"
            return 1
        fi
        if [[ "$output" != *"$expected"* ]]; then
            echo "self-test: caught, but the message lacks '$expected': $output" >&2
            rm -rf "$tmp.case"
            return 1
        fi
        rm -rf "$tmp.case"
    done <<'CASES'
engine/amp/conversion.h:#include <QString>|engine/amp/conversion.h:2: includes <QString>
engine/amp/conversion.h:#include "settings.h"|engine/ must not depend on models/
engine/amp/conversion.h:#include "view.h"|engine/ must not depend on widgets/
models/settings.h:#include <QWidget>|models/ includes no QtWidgets header
models/settings.h:#include <QtWidgets/QTreeView>|models/ includes no QtWidgets header
models/settings.h:#include "view.h"|models/ must not depend on widgets/
widgets/view.h:#include "window.h"|widgets/ must not depend on app/
CASES
    echo "check-layers: self-test caught every planted violation"
}

if [[ "${1:-}" == "--self-test" ]]; then
    self_test
else
    check_tree "$(realpath "${1:-$(dirname "$0")/..}")"
fi
