#!/usr/bin/env bash
# Drop-in replacement for the plugin's scripts/query-foreshadow.sh.
# Usage: query-foreshadow.sh <chapter_num>   (cwd = project root)
# Prints the same JSON object as before (.items, .stats, .sources), computed
# by `novel-foreshadow query`; the plan volume comes from .checkpoint.json.
set -euo pipefail
if [ "$#" -ne 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$((10#$1))" -le 0 ]; then
  echo "usage: query-foreshadow.sh <chapter_num>" >&2
  exit 1
fi
command -v novel-foreshadow >/dev/null 2>&1 || { echo "novel-foreshadow is not on PATH (run make install in the novel repository)" >&2; exit 2; }
# One line, like the original script; --jq . prints compact JSON.
exec novel-foreshadow query --project . --chapter "$((10#$1))" --jq .
