#!/bin/sh
# A SAT solver that answers every formula with "unsatisfiable": its
# refutations are claims odtkit cannot check.
echo "s UNSATISFIABLE"
