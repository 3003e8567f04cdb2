#!/bin/sh
# Set up a fresh Debian machine: headless GL libraries (when root and missing), a venv, the package.
set -eu
venv="${1:-.venv}"
gl_pkgs="libegl1 libgl1 libegl-mesa0 libgl1-mesa-dri"
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
    for p in $gl_pkgs; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
fi
if [ -n "$missing" ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "bootstrap: installing headless GL packages:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
    else
        echo "bootstrap: missing GL packages:$missing (run 'sudo apt-get install$missing' for rendering)" >&2
    fi
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "bootstrap: creating $venv"
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -e ".[test,dev]"
echo "bootstrap: ready ($venv)"
