#!/bin/sh
# A MILP "solver" that solves a restricted model with HiGHS — the root of
# the milp-flowoct tree forced to test 0 (the lower bound of column b_0_0
# raised to 1) — and reports its solution as "Optimal": a claim about a
# model other than the one it was given.
# usage: restricted-highs.sh MODEL.mps SOLUTION
sed 's/^ LO BND  *b_0_0  *0$/ LO BND  b_0_0  1/' "$1" > "$1.restricted.mps" || exit 1
exec highs --solution_file "$2" "$1.restricted.mps" > /dev/null
