#!/bin/sh
# A MiniZinc "solver" that prints a stored answer; with "hang" it then
# waits (to be stopped by the time limit), with "oom" it says on its
# standard error that it ran out of memory.
# usage: cp-replay.sh ANSWER [hang|oom] MODEL DATA
cat "$1"
if [ "$2" = hang ]; then sleep 30; fi
if [ "$2" = oom ]; then echo "terminate called after throwing an instance of 'std::bad_alloc'" >&2; fi
