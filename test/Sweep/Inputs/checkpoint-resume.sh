#!/usr/bin/env bash
# checkpoint-resume.sh OUT [LAUNCHER...]: runs the 688,128-point mapping
# sweep of tools/bench/mpi-sweeps.llmsys whole, then again with a
# checkpoint after every wave, killed part-way, then resumed (by
# LAUNCHER, e.g. `mpirun -np 2`, when given) from the checkpoint; the
# resumed report must be the whole run's, byte for byte
# (test/Sweep/checkpoint.test, mpi.test).
set -u
out=$1; shift
spec=$(dirname "$0")/../../../tools/bench/mpi-sweeps.llmsys
llmsys sweep "$spec" --sweep=mapping_only --threads=1 > "$out/whole.txt" || exit 1
rm -f "$out/ck"
# Killed as soon as its checkpoint holds part of the grid (read from the
# file: the next point's word after the identity and the grid's size), so
# the test does not depend on the machine's speed.
python3 - "$out/ck" "$spec" <<'PY'
import signal, struct, subprocess, sys, time
ck, spec = sys.argv[1], sys.argv[2]
p = subprocess.Popen(["llmsys", "sweep", spec, "--sweep=mapping_only", "--threads=1",
                      "--checkpoint=" + ck, "--checkpoint-interval=0"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while p.poll() is None:
    try:
        b = open(ck, "rb").read()
        ident = struct.unpack_from("<Q", b, 16)[0]
        total, nxt = struct.unpack_from("<QQ", b, 24 + ident)
        if 0 < nxt < total:
            p.send_signal(signal.SIGKILL)
            break
    except (OSError, struct.error):
        pass
    time.sleep(0.005)
p.wait()
PY
"$@" llmsys sweep "$spec" --sweep=mapping_only --threads=1 \
  --checkpoint="$out/ck" > "$out/resumed.txt" 2> "$out/resumed.err" || exit 1
cmp "$out/whole.txt" "$out/resumed.txt" || exit 1
# The note says how far the killed run got: part of the grid, not all.
python3 - "$out/resumed.err" <<'PY'
import re, sys
m = re.search(r"resumed from '.*': (\d+) of (\d+) points were done", open(sys.argv[1]).read())
done, total = int(m.group(1)), int(m.group(2))
print("resumed: part of the grid" if 0 < done < total else "resumed: %d of %d" % (done, total))
PY
