#!/bin/sh
# pyinstalled.sh PYTHON PREFIX SITE SCRIPT ARGS...: runs SCRIPT with the
# module installed under PREFIX/SITE on the path (and nothing from the
# build tree).
py=$1; prefix=$2; site=$3; shift 3
PYTHONPATH="$prefix/$site" exec "$py" "$@"
