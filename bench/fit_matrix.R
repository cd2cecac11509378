# fit_matrix.R times R's density() and survfit() for bench/fit_matrix.sh:
#
#   Rscript bench/fit_matrix.R N RUNS
#
# on n = N draws of rlnorm(N, 3, 1) held in memory (generation not timed),
# for each domain/rule case of BenchmarkEstimateMatrix: density(log(x))
# in the log domain, density(x) in the linear and reflect ones (R has no
# reflection; density(x) is the cheaper peer), with bw = "nrd0" for
# silverman and isj (R has no ISJ: its default is the peer), "nrd" for
# scott, "SJ" for sj; and survfit(Surv(time, status) ~ 1) with the
# censoring of BenchmarkKaplanMeierMatrix (uniform follow-up on [0, 60 s]),
# up to 10M values (survfit takes about a minute a call there).
# Each timing repeats the call until it has run 0.3 s and divides; it
# prints "case wall cpu" lines, the medians of RUNS timings in seconds of
# elapsed time and of user + system CPU time.
suppressPackageStartupMessages(library(survival))
args <- commandArgs(TRUE)
n <- as.numeric(args[1]); runs <- as.integer(args[2]); minsec <- 0.3
set.seed(1); x <- rlnorm(n, 3, 1)
timeit <- function(f) {
  reps <- 1
  repeat {
    t <- system.time(for (i in seq_len(reps)) f())
    if (t[["elapsed"]] >= minsec || reps >= 1e5) break
    reps <- reps * max(2, ceiling(minsec / max(t[["elapsed"]], 1e-3)))
  }
  one <- function(t) c(t[["elapsed"]], t[["user.self"]] + t[["sys.self"]]) / reps
  ts <- one(t)
  for (r in seq_len(runs - 1)) ts <- rbind(ts, one(system.time(for (i in seq_len(reps)) f())))
  if (is.null(dim(ts))) ts else apply(ts, 2, median)
}
fmt <- function(t) sprintf("%.6g %.6g", t[1], t[2])
for (dom in c("log", "linear", "reflect")) for (rule in c("isj", "sj", "silverman", "scott")) {
  bw <- switch(rule, isj = "nrd0", sj = "SJ", silverman = "nrd0", scott = "nrd")
  f <- if (dom == "log") function() density(log(x), bw = bw) else function() density(x, bw = bw)
  cat(sprintf("%s/%s %s\n", dom, rule, fmt(timeit(f))))
}
if (n > 1e7) quit(save = "no")  # survfit takes about 60 s a call at 10M
follow <- 60 * runif(n)
time <- pmin(x, follow); status <- as.integer(x <= follow)
rm(x, follow); invisible(gc())
cat(sprintf("km %s\n", fmt(timeit(function() survfit(Surv(time, status) ~ 1)))))
