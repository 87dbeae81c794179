#!/bin/sh
# A MiniZinc "solver" that prints a stored answer, and with "hang" then
# waits (to be stopped by the time limit).
# usage: cp-replay.sh ANSWER [hang] MODEL DATA
cat "$1"
if [ "$2" = hang ]; then sleep 30; fi
