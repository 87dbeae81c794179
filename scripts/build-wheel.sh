#!/usr/bin/env bash
# Builds a platform wheel of the Python package with the odt binary inside:
# python/dist/odtkit-VERSION-py3-none-PLATFORM.whl (any Python 3.9+, this OS and CPU).
#   --highs   link odt with HiGHS (the MILP solves); the wheel then needs the
#             HiGHS shared library on the machines that install it. Without
#             it odt is the static pure-Go build, with every other backend.
# Needs Go and Debian's python3-setuptools and python3-wheel; downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /usr/local/go/bin ] && export PATH="/usr/local/go/bin:$PATH"
tags=""
case "${1:-}" in
--highs) tags=highs ;;
"") ;;
*)
	echo "usage: scripts/build-wheel.sh [--highs]" >&2
	exit 2
	;;
esac
mkdir -p python/dist
rm -rf python/build
ODTKIT_GO_TAGS="$tags" /usr/bin/python3 -m pip wheel --no-build-isolation --no-deps -w python/dist ./python
rm -rf python/build
ls -1 python/dist/odtkit-*.whl
