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
