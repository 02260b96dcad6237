"""Prints what step-overhead.test checks: the two runs' steps and the
differences of their duration and mean latencies, in ms."""
import json
import sys

base, host = json.load(open(sys.argv[1]))["scenarios"]
print("steps", base["traffic"]["steps"], host["traffic"]["steps"])
for key, name in (("duration_s", "duration"), ("ttft_mean_s", "ttft"),
                  ("tpot_mean_s", "tpot")):
    delta = host["traffic"][key] - base["traffic"][key]
    print(f"{name} {1e3 * delta:+.3f} ms")
print(f"host time {1e3 * base['traffic']['host_time_s']:.3f} ms, "
      f"{1e3 * host['traffic']['host_time_s']:.3f} ms")
