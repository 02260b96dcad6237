"""The findings of study 2, from the tool's JSON and the sweeps' CSV (see
technology-nodes.test): they must hold, the page's texts recomputed here
must appear in docs/studies/technology-nodes.md as it quotes them, and no
figure of its prose is typed by hand.

    technology-nodes.test.py BASE PAGE.md

BASE.eval.json is `llmsys eval --format=json`, BASE.SWEEP.csv each sweep's
CSV.
"""
import sys

from prose import column as col, scenarios as read_scenarios, study_checker

base, prose, rows = study_checker(sys.argv)
quoted, check = prose.quoted, prose.check

scenarios = read_scenarios(f"{base}.eval.json")

# Logic and SRAM scaling alone, 12 nm -> A10, node by node.
train = rows("nodes_train")
step, mfu = col(train, "step_time_s"), col(train, "mfu")
check("every node is faster", all(a > b for a, b in zip(step, step[1:])))
LO, HI = 5, 10
check(f"{LO}-{HI}x over the range", LO < step[0] / step[-1] < HI)
quoted(f"checked: {LO}-{HI}x)")
check("MFU falls to under half", mfu[0] > 0.35 and mfu[-1] < mfu[0] / 2)
# The memory-bound share of the step grows node by node, to nearly all of it.
ends = ["shrink_train", "shrink_train_n7", "shrink_train_n2", "shrink_train_a14",
        "shrink_train_a10"]
share = [scenarios[n]["breakdown"]["memory_bound_s"] / scenarios[n]["step_time_s"]
         for n in ends]
check("the memory-bound share grows node by node",
      all(a < b for a, b in zip(share, share[1:])))
check("at 12 nm mostly compute-bound, at A10 mostly memory-bound",
      share[0] < 0.5 < share[-1])
check("the three nodes between are the sweep's N7, N2 and A14",
      all(abs(scenarios[n]["step_time_s"] / x - 1) < 1e-6
          for n, x in zip(ends[1:4], (step[1], step[4], step[5]))))

serve = rows("nodes_serve")
ttft, tpot = col(serve, "ttft_s"), col(serve, "tpot_s")
check("the prefill follows the logic", ttft[0] / ttft[-1] > 5)
check("the decode does not move", max(tpot) / min(tpot) < 1.1)
a10 = scenarios["shrink_serve_a10"]
check("at A10 the prefill is memory-bound", a10["prefill"]["bound"] == "memory bandwidth")


# At A10: logic, memory (HBM4) and network (NVLink 5) separately and together.
def pick(rs, acc, fabric, key):
    return [float(r[key]) for r in rs
            if r["system.node.accelerator"] == acc and r["system.node.fabric"] == fabric][0]


t = rows("a10_train")
v100 = pick(t, "V100_SXM2_32GB", "nvlink2", "step_time_s")
logic = pick(t, "V100_at_A10", "nvlink2", "step_time_s")
both = pick(t, "V100_at_A10_hbm4", "nvlink2", "step_time_s")
mem = pick(t, "V100_hbm4", "nvlink2", "step_time_s")
check("memory alone: little for training at 12 nm", v100 / mem < 1.2)
check("with the logic, memory adds to the gain", logic / both > 1.5)
# NVLink 5: most with both improvements (the shortest step), and little.
accs = ["V100_SXM2_32GB", "V100_at_A10", "V100_hbm4", "V100_at_A10_hbm4"]
net = [1 - pick(t, a, "nvlink5", "step_time_s") / pick(t, a, "nvlink2", "step_time_s")
       for a in accs]
check("NVLink 5 changes training most with the A10 logic and HBM4",
      max(net) == net[-1])
UNDER = 0.10
check(f"NVLink 5 changes training by under {UNDER:.0%}", max(net) < UNDER)
quoted(f"checked: under {UNDER:.0%})")

s = rows("a10_serve")
tpot_v100 = pick(s, "V100_SXM2_32GB", "nvlink2", "tpot_s")
tpot_mem = pick(s, "V100_hbm4", "nvlink2", "tpot_s")
ttft_v100 = pick(s, "V100_SXM2_32GB", "nvlink2", "ttft_s")
ttft_mem = pick(s, "V100_hbm4", "nvlink2", "ttft_s")
check("memory alone: the decode follows it", tpot_v100 / tpot_mem > 4)
check("and the prefill does not", ttft_v100 / ttft_mem < 1.1)
check("NVLink 5 does not change serving",
      all(pick(s, a, "nvlink2", "e2e_s") == pick(s, a, "nvlink5", "e2e_s") for a in accs))

# Re-planned at each end (the plans' mappings: technology-nodes.test).
fixed12, fixed10 = step[0], step[-1]
p12, p10 = rows("plan_12nm")[0], rows("plan_a10")[0]
best12, best10 = float(p12["step_time_s"]), float(p10["step_time_s"])
check("the 12 nm plan: ZeRO 2", p12["mapping.zero"] == "2")
check("the A10 plan: ZeRO 2", p10["mapping.zero"] == "2")
quoted(f"{fixed12 / best12:.2f}x faster than the fixed plan")
quoted(f"s ({fixed10 / best10:.2f}x). Every micro-batch")
quoted(f"the shrink gains {best12 / best10:.1f}x (")
check("planned, the shrink gains less than with the fixed plan",
      best12 / best10 < fixed12 / fixed10)
dp = rows("plan_a10_dp")[0]
check("the best pure data-parallel plan at A10 is the 12 nm plan: micro-batch 2, no recomputation",
      (dp["mapping.micro_batch"], dp["mapping.recompute"], dp["mapping.zero"])
      == (p12["mapping.micro_batch"], p12["mapping.recompute"], p12["mapping.zero"])
      == ("2", "none", "2"))
tp = rows("plan_a10_tp")[0]
check("the best with TP at A10: TP 2, DP 4, micro-batch 4, ZeRO 2",
      (tp["mapping.tp"], tp["mapping.pp"], tp["mapping.dp"], tp["mapping.micro_batch"],
       tp["mapping.zero"]) == ("2", "1", "4", "4", "2"))
at10 = float(rows("plan_12nm_at_a10")[0]["step_time_s"])
check("the A10 plan beats the 12 nm plan, pure DP and TP there",
      best10 < min(at10, float(dp["step_time_s"]), float(tp["step_time_s"])))

prose.report("technology-nodes")
