#!/bin/bash
# A tournament in K slices with GNU parallel (round-robin and gauntlet; for knockout and
# Swiss, run it once per round with FROM set to the previous round's merged file):
#   REPO=... GAME=stake_raid ENTRANTS="/class ours:agent" OPTIONS="--time 200" OUT=... \
#       cluster/parallel/tournament.sh K [PARALLEL OPTIONS...]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K="${1:?usage: tournament.sh K [PARALLEL OPTIONS...]}"
shift
REPO="${REPO:-$(cd "$HERE/../.." && pwd)}"
: "${ENTRANTS:?set ENTRANTS}" "${OUT:?set OUT}"
GAME="${GAME:-stake_raid}"
OPTIONS="${OPTIONS:-}"
ROUND="${ROUND:-1}"
FROM="${FROM:-}"
from=""
if [ -n "$FROM" ]; then from="--from $(printf %q "$FROM")"; fi
mkdir -p "$OUT"
seq 1 "$K" | parallel --halt never "$@" \
    "cd $(printf %q "$OUT") && PYTHONPATH=$(printf %q "$REPO") python3 -m engine tournament run \
    $GAME $ENTRANTS $OPTIONS $from --shard {}/$K --resume --json round-$ROUND-shard-{}.json \
    --jobs 1 --quiet"
cd "$OUT"
PYTHONPATH="$REPO" python3 -m engine tournament merge round-"$ROUND"-shard-*.json \
    --json round-"$ROUND".json --csv standings.csv --report tournament.html --quiet
cp round-"$ROUND".json tournament.json
