#!/usr/bin/env bash
# The many-core checks in one run (a lent 16-core machine, minutes of it): build, the
# search's thread scaling and batching sweep (bench_threads.py), the solver's thread
# scaling on FFO #20-#39, then Elo per doubling of threads at equal time per move, each
# pairing with as many games at once as the cores allow (one side thinks at a time).
#
#   benchmarks/many_cores.sh [OUT_DIR]       # logs there (default: many-cores-out)
#
# Environment: GAMES="80 80 80 40" (games of 1v2 2v4 4v8 8v16; 0 leaves a pairing out; the
# last is also the batching match's), SEED=1 (the openings; another seed, new games), MOVE_TIME=0.1,
# CORES=16, SECONDS_EACH=1.0 (each scaling measurement), PYTHON=python3, and BATCHING=
# HOT,FLUSH,OWN (e.g. 32,256,1): 16 threads with that batching against 16 threads with
# the defaults, at equal time, one game at a time; TIME_GAMES=N with TIME_PAIRS="0.5:1
# 1:2" (seconds a move, lower:higher): the expert preset on one thread against itself
# with twice the time, N games each, CORES games at once (what a doubling of time buys,
# with many games). SKIP_THREADS=1 leaves out the thread scaling, the solver and the
# matches by threads. PUCT_GAMES="40 40 32 24": PUCT (threads=N) per doubling of threads
# too, PUCT_TIME=0.25 s a move (the scaling table has PUCT's simulations/s anyway).
set -u
OUT_DIR=${1:-many-cores-out}
PYTHON=${PYTHON:-python3}
CORES=${CORES:-16}
MOVE_TIME=${MOVE_TIME:-0.1}
SECONDS_EACH=${SECONDS_EACH:-1.0}
read -r -a GAMES <<< "${GAMES:-80 80 80 40}"
mkdir -p "$OUT_DIR" && OUT_DIR=$(cd "$OUT_DIR" && pwd)
export PYTHONPATH=src PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.." || exit 1

start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }

stamp "build ($(nproc) cores, $($PYTHON -V 2>&1), Cython $($PYTHON -c 'import Cython; print(Cython.__version__)'))"
if ! $PYTHON setup.py build_ext --inplace -q -j "$CORES" > "$OUT_DIR/build.log" 2>&1; then
    tail -30 "$OUT_DIR/build.log"
    exit 1
fi
$PYTHON -c "import cythello as cy; print(cy.__version__, cy.build_info())" || exit 1

if [ -z "${SKIP_THREADS:-}" ]; then
    stamp "search: thread scaling"
    $PYTHON benchmarks/bench_threads.py --threads 1,2,4,8,16 --seconds "$SECONDS_EACH" \
        --json "$OUT_DIR/threads.json" 2>&1 | tee "$OUT_DIR/threads.txt"

    stamp "solver: FFO #20-#39 by threads"
    $PYTHON benchmarks/bench_endgame.py --suite 20-39 --quiet --threads 1,4,16 2>&1 \
        | tee "$OUT_DIR/solver.txt"

    stamp "Elo per doubling of threads, ${MOVE_TIME} s a move"
    i=0
    for low in 1 2 4 8; do
        high=$(( 2 * low ))
        workers=$(( CORES / high > 0 ? CORES / high : 1 ))
        [ "${GAMES[$i]}" -gt 0 ] || { i=$(( i + 1 )); continue; }
        stamp "${low} vs ${high} threads: ${GAMES[$i]} games, ${workers} at once"
        $PYTHON benchmarks/strength.py --games "${GAMES[$i]}" --time "$MOVE_TIME" \
            --seed "${SEED:-1}" --workers "$workers" --pair "mcts:preset=expert,threads=${high}" \
            "mcts:preset=expert,threads=${low}" 2>&1 | tee -a "$OUT_DIR/elo.txt"
        i=$(( i + 1 ))
    done
fi
if [ -n "${PUCT_GAMES:-}" ]; then
    read -r -a PGAMES <<< "$PUCT_GAMES"
    i=0
    for low in 1 2 4 8; do
        high=$(( 2 * low ))
        workers=$(( CORES / high > 0 ? CORES / high : 1 ))
        stamp "PUCT ${low} vs ${high} threads: ${PGAMES[$i]} games, ${workers} at once"
        $PYTHON benchmarks/strength.py --games "${PGAMES[$i]}" --workers "$workers" --pair \
            "puct:time=${PUCT_TIME:-0.25},endgame_empties=20,threads=${high}" \
            "puct:time=${PUCT_TIME:-0.25},endgame_empties=20,threads=${low}" 2>&1 \
            | tee -a "$OUT_DIR/elo.txt"
        i=$(( i + 1 ))
    done
fi
if [ -n "${BATCHING:-}" ]; then
    stamp "16 threads, batching ${BATCHING} vs the defaults: ${GAMES[3]} games"
    $PYTHON benchmarks/strength.py --games "${GAMES[3]}" --time "$MOVE_TIME" --workers 1 \
        --seed "${SEED:-1}" --batching "$BATCHING" --pair "mcts:preset=expert,threads=16" \
        "mcts:preset=expert,threads=16" 2>&1 | tee -a "$OUT_DIR/elo.txt"
fi
for pair in ${TIME_PAIRS:-}; do
    low=${pair%%:*}
    high=${pair##*:}
    stamp "expert, ${high} s against ${low} s a move: ${TIME_GAMES:-100} games, ${CORES} at once"
    $PYTHON benchmarks/strength.py --games "${TIME_GAMES:-100}" --workers "$CORES" --pair \
        "mcts:preset=expert,time=${high}" "mcts:preset=expert,time=${low}" 2>&1 \
        | tee -a "$OUT_DIR/elo.txt"
done
stamp "done"
