#!/bin/bash
PROBES="diamond twice seed_existing zero_then zero_list chain_backward chain_zero ladder_backward ladder_zero cycle_below cycle_through cycle_long restore numgrad numgrad_multi check_big check_wrong_second check_stale"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); REF=$ROOT/solutions/lab03_backprop
declare -A REFOUT
for p in $PROBES; do REFOUT[$p]=$(timeout 20 python3 $ROOT/tests/independent/_probes/probe03.py $REF $p 2>&1 | tail -1 | sed 's/, [0-9.]*\]$/]/'); done
for d in $ROOT/tests/independent/lab03_backprop/${1:-*}/; do
  n=$(basename $d); diff=""
  for p in $PROBES; do
    o=$(timeout 20 python3 $ROOT/tests/independent/_probes/probe03.py $d $p 2>&1 | tail -1 | sed 's/, [0-9.]*\]$/]/'); rc=$?
    [ -z "$o" ] && o="TIMEOUT"
    [ "$o" != "${REFOUT[$p]}" ] && diff="$diff $p=<$o>"
  done
  echo "$n:$diff"
done
