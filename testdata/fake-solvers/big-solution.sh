#!/bin/sh
# A MILP "solver" that writes a 500 MB solution file of garbage.
# usage: big-solution.sh MODEL SOLUTION
yes | head -c 500M > "$2"
