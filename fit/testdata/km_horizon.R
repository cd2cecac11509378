# The default horizon's quantile among pending rows on the reviewer's status.csv
# (/tmp/data/gen.py, numpy seed 42; copied to fit/testdata/km_horizon.csv):
#
#   Rscript km_horizon.R > km_horizon.txt       (R 4.2.2, survival 3.x)
#
# km: survfit's quantile at 0.99·F(t_max), the smallest t with
# F_KM(t) ≥ 0.99·F_KM(t_max) (type 1); type7: the same masses interpolated
# as R's quantile type 7 in its weighted form (the position of the i-th
# settled item in order is Σ_{j<i} m_j / (Σm − m_last)), which is
# fit.SettledQuantile; settled_only: quantile(type 7) of the settled rows
# alone, the horizon before it was the Kaplan–Meier one.
library(survival); library(data.table)
d <- fread('km_horizon.csv'); d[, ev := as.integer(status != 'pending')]
f <- survfit(Surv(settle_s, ev) ~ 1, data = d)
Ftmax <- 1 - min(f$surv)
km <- quantile(f, probs = 0.99 * Ftmax, conf.int = FALSE)
# Mass of each settled item: the KM jump at its time over the items settled there.
e <- f$n.event > 0
jump <- -diff(c(1, f$surv))[e]
m <- rep(jump / f$n.event[e], f$n.event[e])
x <- rep(f$time[e], f$n.event[e])
pos <- (cumsum(m) - m) / (sum(m) - m[length(m)])
p <- 0.99
j <- which(pos >= p)[1]
type7 <- if (j == 1 || pos[j] == p) x[j] else x[j-1] + (p - pos[j-1]) / (pos[j] - pos[j-1]) * (x[j] - x[j-1])
cat(sprintf('km %.17g\ntype7 %.17g\nsettled_only %.17g\nS45 %.17g\nlast_settle %.17g\n',
  km, type7, quantile(d$settle_s[d$ev == 1], 0.99, type = 7), summary(f, times = 45)$surv, max(d$settle_s[d$ev == 1])))
