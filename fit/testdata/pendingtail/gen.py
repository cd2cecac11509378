# gen.py writes the pending-tail samples of pendingtail.R (run from this
# directory with /usr/bin/python3 and numpy >= 1.17): 950 Weibull settle
# times (shape 1.5, scale 30 s) and 50 pending items whose ages are
# uniform on [lo, hi] s, shuffled, 6 decimals. With pending ages
# 1000-5000 s, far beyond every settle, the Weibull fit failed
# ("weibull maximum likelihood failed to converge").
import numpy as np

for lo, hi in [(10, 60), (1000, 5000), (10000, 100000)]:
    rng = np.random.default_rng(1)
    n, m = 1000, 50
    t = 30 * rng.weibull(1.5, n - m)
    c = rng.uniform(lo, hi, m)
    st = ["done"] * (n - m) + ["pending"] * m
    x = np.concatenate([t, c])
    with open(f"pending_{lo}_{hi}.csv", "w") as f:
        f.write("duration_s,st\n")
        for i in rng.permutation(n):
            f.write(f"{x[i]:.6f},{st[i]}\n")
