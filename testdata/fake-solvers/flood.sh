#!/bin/sh
# A solver that prints 500 MB of garbage ("y" lines) and no answer.
yes | head -c 500M
