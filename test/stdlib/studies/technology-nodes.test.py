"""The findings of study 2, from the sweeps' CSV (see technology-nodes.test)."""
import csv
import sys

base = sys.argv[1]


def rows(name):
    return list(csv.DictReader(open(f"{base}.{name}.csv")))


def col(rs, key):
    return [float(r[key]) for r in rs]


# Logic and SRAM scaling alone, 12 nm -> A10, node by node.
train = rows("nodes_train")
step, mfu = col(train, "step_time_s"), col(train, "mfu")
assert all(a > b for a, b in zip(step, step[1:])), step          # every node is faster
assert 5 < step[0] / step[-1] < 10, step[0] / step[-1]           # 5-10x over the range
assert mfu[0] > 0.35 and mfu[-1] < mfu[0] / 2, mfu              # but MFU falls to under half

serve = rows("nodes_serve")
ttft, tpot = col(serve, "ttft_s"), col(serve, "tpot_s")
assert ttft[0] / ttft[-1] > 5, ttft                              # the prefill follows the logic
assert max(tpot) / min(tpot) < 1.1, tpot                         # the decode does not move

# At A10: logic, memory (HBM4) and network (NVLink 5) separately and together.
def pick(rs, acc, fabric, key):
    return [float(r[key]) for r in rs
            if r["system.node.accelerator"] == acc and r["system.node.fabric"] == fabric][0]

t = rows("a10_train")
v100 = pick(t, "V100_SXM2_32GB", "nvlink2", "step_time_s")
logic = pick(t, "V100_at_A10", "nvlink2", "step_time_s")
both = pick(t, "V100_at_A10_hbm4", "nvlink2", "step_time_s")
mem = pick(t, "V100_hbm4", "nvlink2", "step_time_s")
net = pick(t, "V100_at_A10_hbm4", "nvlink5", "step_time_s")
assert v100 / mem < 1.2, (v100, mem)             # memory alone: little for training at 12 nm
assert logic / both > 1.5, (logic, both)         # but with the logic it doubles the gain
assert both / net < 1.1, (both, net)             # NVLink 5 adds under 10% (data parallel)

s = rows("a10_serve")
tpot_v100 = pick(s, "V100_SXM2_32GB", "nvlink2", "tpot_s")
tpot_mem = pick(s, "V100_hbm4", "nvlink2", "tpot_s")
ttft_v100 = pick(s, "V100_SXM2_32GB", "nvlink2", "ttft_s")
ttft_mem = pick(s, "V100_hbm4", "nvlink2", "ttft_s")
assert tpot_v100 / tpot_mem > 4, (tpot_v100, tpot_mem)   # memory alone: the decode follows it
assert ttft_v100 / ttft_mem < 1.1, (ttft_v100, ttft_mem) # and the prefill does not
print("technology-nodes findings hold")
