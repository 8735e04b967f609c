#!/bin/bash
# Grade a class in K slices with GNU parallel (where there is no scheduler): on this
# machine, or on several over ssh when they share the folders (NFS):
#   REPO=... PROGRAM=stake_raid CLASS=... CASES=... OUT=... cluster/parallel/grade.sh K \
#       [PARALLEL OPTIONS...]          # e.g. --sshloginfile hosts.txt
# A slice that fails or is stopped is simply run again: --resume keeps what it finished.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K="${1:?usage: grade.sh K [PARALLEL OPTIONS...]}"
shift
REPO="${REPO:-$(cd "$HERE/../.." && pwd)}"
: "${CLASS:?set CLASS}" "${CASES:?set CASES}" "${OUT:?set OUT}"
PROGRAM="${PROGRAM:-stake_raid}"
TIMEOUT="${TIMEOUT:-10}"
mkdir -p "$OUT"
seq 1 "$K" | parallel --halt never "$@" \
    "cd $(printf %q "$OUT") && PYTHONPATH=$(printf %q "$REPO") python3 -m engine grade run \
    $(printf %q "$PROGRAM") $(printf %q "$CLASS") --cases $(printf %q "$CASES") \
    --timeout $(printf %q "$TIMEOUT") --shard {}/$K --resume --json shard-{}.json --jobs 1 --quiet"
cd "$OUT"
PYTHONPATH="$REPO" python3 -m engine grade merge shard-*.json --json class.json \
    --csv grades.csv --gradescope gradescope --report report.html
