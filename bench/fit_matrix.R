# fit_matrix.R times R's density() and survfit() for bench/fit_matrix.sh:
#
#   Rscript bench/fit_matrix.R N RUNS [CASE] [LIMIT]
#
# on n = N draws of rlnorm(N, 3, 1) held in memory (generation not timed),
# for each domain/rule case of BenchmarkEstimateMatrix: density(log(x))
# in the log domain, density(x) in the linear and reflect ones (R has no
# reflection; density(x) is the cheaper peer), with bw = "nrd0" for
# silverman and isj (R has no ISJ: its default is the peer), "nrd" for
# scott, "SJ" for sj; and survfit(Surv(time, status) ~ 1) with the
# censoring of BenchmarkKaplanMeierMatrix (uniform follow-up on [0, 60 s]),
# up to 10M values (survfit takes about a minute a call there).
# CASE (default all) runs one case only: DOMAIN/RULE (log/sj) or km.
# Each timing repeats the call until it has run 0.3 s and divides; it
# prints "case wall cpu" lines, the medians of RUNS timings in seconds of
# elapsed time and of user + system CPU time, or "case timeout timeout"
# when the case's timings have not ended after LIMIT seconds (default
# 600; R checks the limit between calls of its C code).
suppressPackageStartupMessages(library(survival))
args <- commandArgs(TRUE)
n <- as.numeric(args[1]); runs <- as.integer(args[2]); minsec <- 0.3
only <- if (length(args) >= 3) args[3] else "all"
limit <- if (length(args) >= 4) as.numeric(args[4]) else 600
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
# limited times f as timeit does, unless it runs past limit seconds.
limited <- function(f) {
  setTimeLimit(elapsed = limit, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf))
  tryCatch(sprintf("%.6g %.6g", (t <- timeit(f))[1], t[2]), error = function(e) {
    if (!grepl("time limit", conditionMessage(e))) stop(e)
    "timeout timeout"
  })
}
for (dom in c("log", "linear", "reflect")) for (rule in c("isj", "sj", "silverman", "scott")) {
  name <- sprintf("%s/%s", dom, rule)
  if (only != "all" && only != name) next
  bw <- switch(rule, isj = "nrd0", sj = "SJ", silverman = "nrd0", scott = "nrd")
  f <- if (dom == "log") function() density(log(x), bw = bw) else function() density(x, bw = bw)
  cat(sprintf("%s %s\n", name, limited(f)))
}
if (n > 1e7 || !(only %in% c("all", "km"))) quit(save = "no")  # survfit takes about 60 s a call at 10M
follow <- 60 * runif(n)
time <- pmin(x, follow); status <- as.integer(x <= follow)
rm(x, follow); invisible(gc())
cat(sprintf("km %s\n", limited(function() survfit(Surv(time, status) ~ 1))))
