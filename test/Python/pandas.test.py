import sys

import llmsys
import pandas as pd

df = pd.DataFrame(llmsys.load(sys.argv[1]).sweep("plans"))
print("rows", len(df), "columns", ",".join(df.columns))
best = df.loc[df["rank"] == 1].iloc[0]
print("best tp", best["mapping.tp"], "micro_batch", best["mapping.micro_batch"])
print("sorted", bool(df["step_time_s"].is_monotonic_increasing))
