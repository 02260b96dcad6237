#!/usr/bin/env bash
# mpi-compare.sh OUT MPIRUN... : runs every sweep of mpi-sweeps.llmsys in
# every format as one process and over 1, 2 and 3 ranks (MPIRUN N ...),
# and compares the outputs byte for byte (test/Sweep/mpi.test).
set -eu
out=$1; shift
spec=$(dirname "$0")/mpi-sweeps.llmsys
for s in best front fitting every parts; do
  for f in text csv json; do
    llmsys sweep "$spec" --sweep=$s --format=$f --threads=2 > "$out/$s.$f.one"
    for n in 1 2 3; do
      "$@" $n llmsys sweep "$spec" --sweep=$s --format=$f > "$out/$s.$f.$n"
      cmp "$out/$s.$f.one" "$out/$s.$f.$n"
    done
  done
done
echo "compared: 5 sweeps x 3 formats x 1, 2, 3 ranks"
