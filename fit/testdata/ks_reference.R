# ks_reference.R writes the Kolmogorov–Smirnov reference values that
# TestKSMatchesR compares against (ks_reference.json). Run from
# fit/testdata:
#
#   Rscript ks_reference.R
#
# Needs R (>= 4.2) with the recommended package survival (Debian:
# apt-get install r-base-core r-cran-survival). Each case draws its sample
# here (set.seed), so the test reads the same numbers; the distances are
# computed by R: stats::ks.test for complete continuous samples, and from
# survival::survfit's Kaplan–Meier steps for censored, weighted and rounded
# ones (both sides of every jump, and the horizon).
suppressPackageStartupMessages(library(survival))

num <- function(x) sprintf("%.17g", x)
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")
str <- function(s) sprintf("\"%s\"", s)
obj <- function(...) {
  a <- list(...)
  paste0("{", paste(sprintf("\"%s\":%s", names(a), unlist(a)), collapse = ","), "}")
}

# km_distance: sup over [0, H] of |F(t) - (1 - S_KM(t))|, F the model's
# CDF, at both sides of each KM jump and at H. With half > 0 (data rounded
# to 2*half), F is read at t + half after a jump and t - half before it
# (the rounded times' distribution).
km_distance <- function(time, status, w, cdf, H, half = 0) {
  fit <- survfit(Surv(time, status) ~ 1, weights = w)
  keep <- fit$n.event > 0 & fit$time <= H
  tj <- fit$time[keep]
  Fn <- 1 - fit$surv[keep]
  Fprev <- c(0, head(Fn, -1))
  after <- abs(cdf(tj + half) - Fn)
  before <- abs(cdf(tj - half) - Fprev)
  last <- if (length(Fn)) tail(Fn, 1) else 0
  max(after, before, abs(cdf(H) - last))
}

set.seed(11)
cases <- character()

# 1-2. Complete continuous lognormal sample: ks.test against the model
# given, and against the maximum-likelihood lognormal (sdlog with divisor
# n, as fit.MaxLikelihood).
x <- rlnorm(200, meanlog = 1, sdlog = 0.5)
given <- unname(ks.test(x, "plnorm", 1, 0.5)$statistic)
mu <- mean(log(x)); sigma <- sqrt(mean((log(x) - mu)^2))
mle <- unname(ks.test(x, "plnorm", mu, sigma)$statistic)
cases <- c(cases, obj(name = str("lognormal_given"), dist = str("lognormal:mu=1,sigma=0.5"),
  x = vec(x), d = num(given)))
cases <- c(cases, obj(name = str("lognormal_mle"), dist = str(""), method = str("lognormal"),
  x = vec(x), d = num(mle), mu = num(mu), sigma = num(sigma)))

# 3. Censored with ties, exponential model (rate 0.2), horizon 20.
tc <- c(1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 6, 8, 9, 12, 15)
st <- c(1, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0)
cdf <- function(t) ifelse(t < 0, 0, pexp(pmin(t, 20), 0.2))
cases <- c(cases, obj(name = str("exponential_censored_ties"), dist = str("exponential:rate=0.2"),
  horizon = num(20), x = vec(tc), status = vec(st), d = num(km_distance(tc, st, NULL, cdf, 20))))

# 4. Weighted, censored: Weibull(k = 1.5, lambda = 4), horizon 15.
xw <- round(rweibull(40, 1.5, 4), 3)
sw <- rbinom(40, 1, 0.8)
ww <- round(runif(40, 0.5, 3), 2)
cdf <- function(t) ifelse(t < 0, 0, pweibull(pmin(t, 15), 1.5, 4))
cases <- c(cases, obj(name = str("weibull_weighted_censored"), dist = str("weibull:k=1.5,lambda=4"),
  horizon = num(15), x = vec(xw), status = vec(sw), w = vec(ww),
  d = num(km_distance(xw, sw, ww, cdf, 15))))

# 5. Whole seconds (resolution 1): gamma(2, rate 0.5), horizon 40.
xr <- round(rgamma(300, 2, 0.5))
cdf <- function(t) ifelse(t < 0, 0, pgamma(pmin(t, 40), 2, 0.5))
cases <- c(cases, obj(name = str("gamma_rounded"), dist = str("gamma:alpha=2,beta=0.5"),
  horizon = num(40), resolution = num(1), x = vec(xr),
  d = num(km_distance(xr, rep(1, length(xr)), NULL, cdf, 40, half = 0.5))))

writeLines(paste0("{\"r_version\":", str(R.version.string), ",\"cases\":[\n",
  paste(cases, collapse = ",\n"), "\n]}"), "ks_reference.json")
