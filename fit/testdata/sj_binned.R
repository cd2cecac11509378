# sj_binned.R writes sj_binned.json: R's bw.SJ on the rows behind binned
# input, the reference of the sj rule on binned input (TestSJBinnedMatchesR).
# Run from fit/testdata:
#
#   Rscript sj_binned.R
#
# Needs R (>= 4.2); the bandwidths are in ln t (--domain log, the default).
# Binned input (ingest.BinColumns) says a bin's rows are spread evenly over
# it, so the reference is bw.SJ of count rows at the midpoints of count
# equal parts of each bin [lower, upper), in ln t: the bins' model made
# explicit row by row, independent of how pollfit stores a bin (16 items).
# The bins are written into the JSON, so the test does not depend on the
# fixture changing.

num <- function(x) sprintf("%.17g", x)
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")

# rows spreads each bin's count rows evenly over it, in ln t.
rows <- function(lower, upper, count) {
  unlist(lapply(seq_along(count), function(i) {
    log(lower[i] + (seq_len(count[i]) - 0.5) / count[i] * (upper[i] - lower[i]))
  }))
}

case <- function(name, lower, upper, count, raw = NULL) {
  x <- rows(lower, upper, count)
  fields <- c(
    sprintf("\"name\":\"%s\"", name),
    sprintf("\"lower\":%s", vec(lower)), sprintf("\"upper\":%s", vec(upper)),
    sprintf("\"count\":%s", vec(count)),
    sprintf("\"n\":%d", length(x)),
    sprintf("\"bw_sj_tight\":%s", num(bw.SJ(x, tol = 1e-10))),
    sprintf("\"bw_sj\":%s", num(bw.SJ(x))))
  if (!is.null(raw)) {
    fields <- c(fields, sprintf("\"raw_bw_sj_tight\":%s", num(bw.SJ(log(raw), tol = 1e-10))))
  }
  paste0("{", paste(fields, collapse = ","), "}")
}

# 1. The payments fixture's settled rows in 30 log-spaced bins per decade
# (docs/scale.md's recipe), with bw.SJ of the raw rows beside.
p <- read.csv("../../fixtures/payments.csv")
s <- p$settle_s[p$status != "pending"]
k <- floor(30 * log10(s))
tab <- table(k)
kk <- as.numeric(names(tab))
c1 <- case("payments_30_per_decade", 10^(kk / 30), 10^((kk + 1) / 30), as.numeric(tab), raw = s)

# 2. Five million rows of a lognormal mixture (medians 3.5 s and 13 s,
# σ 0.4 and 0.5 in ln t) in 30 log-spaced bins per decade from 10 ms to
# 1 h: the counts are the mixture's probabilities of the bins times 5e6,
# rounded. At this size sheather-jones sees the lattice of a bin's 16
# items when they are points.
N <- 5e6
kk <- seq(-60, 106)
lower <- 10^(kk / 30); upper <- 10^((kk + 1) / 30)
F <- function(t) 0.6 * plnorm(t, log(3.5), 0.4) + 0.4 * plnorm(t, log(13), 0.5)
count <- round(N * (F(upper) - F(lower)))
keep <- count > 0
c2 <- case("lognormal_mixture_5e6_30_per_decade", lower[keep], upper[keep], count[keep])

writeLines(paste0("[", c1, ",\n", c2, "]"), "sj_binned.json")
