#!/bin/bash
# Run a tournament on Slurm: per round, K array tasks, then their merge; each round
# starts from the merge of the round before (knockout and Swiss pair by results).
#   REPO=... GAME=stake_raid ENTRANTS="/class ours:agent" OPTIONS="--format swiss --rounds 5" \
#   ROUNDS=5 OUT=... cluster/slurm/submit-tournament.sh K [SBATCH OPTIONS...]
# ROUNDS: 1 for round-robin and gauntlet (the default); the Swiss --rounds; for a knockout
# ceil(log2 entrants) (a round with nothing left to play ends at once).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K="${1:?usage: submit-tournament.sh K [SBATCH OPTIONS...]}"
shift
export REPO="${REPO:-$(cd "$HERE/../.." && pwd)}"
: "${ENTRANTS:?set ENTRANTS}" "${OUT:?set OUT}"
export GAME="${GAME:-stake_raid}" OPTIONS="${OPTIONS:---format round-robin}" ENTRANTS OUT
ROUNDS="${ROUNDS:-1}"
mkdir -p "$OUT"
after=()
for round in $(seq 1 "$ROUNDS"); do
    from=""
    if [ "$round" -gt 1 ]; then from="$OUT/round-$((round - 1)).json"; fi
    array=$(ROUND="$round" FROM="$from" sbatch --parsable --array="1-$K" "${after[@]}" \
        --export=ALL --chdir="$OUT" "$@" "$HERE/tournament.sbatch")
    merge=$(ROUND="$round" sbatch --parsable --dependency="afterok:$array" --export=ALL \
        --chdir="$OUT" "$@" "$HERE/tournament-merge.sbatch")
    echo "round $round: array job $array ($K tasks), merge job $merge"
    after=(--dependency="afterok:$merge")
done
echo "results in $OUT (tournament.json, standings.csv, tournament.html)"
