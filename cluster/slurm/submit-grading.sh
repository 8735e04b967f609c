#!/bin/bash
# Grade a class on Slurm: K array tasks, then the merge once they all succeeded.
#   REPO=... PROGRAM=stake_raid CLASS=... CASES=... OUT=... cluster/slurm/submit-grading.sh K [SBATCH OPTIONS...]
# Prints the two job ids. SBATCH OPTIONS (e.g. --partition=short --time=02:00:00) go to both.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
K="${1:?usage: submit-grading.sh K [SBATCH OPTIONS...]}"
shift
export REPO="${REPO:-$(cd "$HERE/../.." && pwd)}"
: "${CLASS:?set CLASS}" "${CASES:?set CASES}" "${OUT:?set OUT}"
export PROGRAM="${PROGRAM:-stake_raid}" CLASS CASES OUT
mkdir -p "$OUT"
array=$(sbatch --parsable --array="1-$K" --export=ALL --chdir="$OUT" "$@" "$HERE/grade.sbatch")
merge=$(sbatch --parsable --dependency="afterok:$array" --export=ALL --chdir="$OUT" "$@" \
    "$HERE/grade-merge.sbatch")
echo "grading: array job $array ($K tasks), merge job $merge; results in $OUT"
