#!/bin/sh
# Installs checkpoint-experience from this offline kit, with no network:
#   sh /path/to/kit/install.sh [DIR]      (DIR: where the project goes, ./checkpoint-experience by default)
# Written by `uv run python -m scenarios kit write KIT`; see docs/workshop.md#the-offline-kit.
set -eu
KIT=$(cd "$(dirname "$0")" && pwd)
PROJECT=${1:-checkpoint-experience}

# The kit's uv when the laptop has none; the Spark environments are made with it too.
command -v uv >/dev/null 2>&1 || PATH="$KIT:$PATH"
for tool in git java; do
    command -v "$tool" >/dev/null 2>&1 || { echo "install.sh: $tool is missing; install it first (see docs/workshop.md)" >&2; exit 1; }
done
# uv makes the project's environment from the laptop's Python: offline it cannot fetch one.
PYTHON=$(command -v python3 || command -v python || true)
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >/dev/null 2>&1; then
    FOUND=$( [ -n "$PYTHON" ] && "$PYTHON" --version 2>&1 || echo "no python3" )
    echo "install.sh: Python 3.10 or newer is missing (found: $FOUND); install it first (see docs/workshop.md)" >&2
    exit 1
fi

if [ -d "$PROJECT/.git" ]; then
    echo "install.sh: $PROJECT is already a clone; installing into it"
else
    git clone --quiet "$KIT/checkpoint-experience.bundle" "$PROJECT"
fi
cd "$PROJECT"
# From the kit's uv cache only; copied, so the kit's folder can be taken away afterwards.
export UV_OFFLINE=1 UV_LINK_MODE=copy
UV_CACHE_DIR="$KIT/uv-cache" uv sync --frozen --quiet
uv run --frozen python -m scenarios kit install "$KIT"
echo "install.sh: done; cd $PROJECT && uv run python -m scenarios doctor"
