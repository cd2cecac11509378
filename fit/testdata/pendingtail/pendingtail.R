# pendingtail.R writes pendingtail.json, the censored maximum-likelihood
# fits of the samples gen.py draws (Weibull settles, 5 % pending at ages
# 10-60 s, 1000-5000 s and 10^4-10^5 s). Run from this directory:
#
#   Rscript pendingtail.R
#
# Needs R (>= 4.2) with survival (Debian: r-cran-survival). Weibull and
# lognormal by survreg (Weibull k = 1/scale, lambda = exp(intercept));
# exponential in closed form, rate = settled / sum of times (survreg runs
# out of iterations on the 10^4-10^5 s sample); gamma, which survreg
# lacks, by optim on the same likelihood, the survival term from
# pgamma(log.p = TRUE).
# It also prints, for the record, the Weibull with a never-settling
# share (mixture cure model, Farewell 1982) maximised by optim: not a
# model pollfit's parametric fits offer.
suppressPackageStartupMessages(library(survival))
num <- function(x) sprintf("%.15g", x)
obj <- function(...) {
  a <- list(...)
  paste0("{", paste0("\"", names(a), "\":", unlist(a), collapse = ","), "}")
}
ctl <- survreg.control(rel.tolerance = 1e-13, maxiter = 200)
cases <- c()
for (f in c("pending_10_60.csv", "pending_1000_5000.csv", "pending_10000_100000.csv")) {
  d <- read.csv(f)
  time <- d$duration_s
  status <- as.integer(d$st == "done")
  sw <- survreg(Surv(time, status) ~ 1, dist = "weibull", control = ctl)
  sl <- survreg(Surv(time, status) ~ 1, dist = "lognormal", control = ctl)
  rate <- sum(status) / sum(time)
  gnll <- function(p) -sum(ifelse(status == 1, dgamma(time, exp(p[1]), exp(p[2]), log = TRUE),
                                   pgamma(time, exp(p[1]), exp(p[2]), lower.tail = FALSE, log.p = TRUE)))
  go <- optim(c(0, -log(mean(time))), gnll, control = list(reltol = 1e-14, maxit = 5000))
  go <- optim(go$par, gnll, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000))
  go <- optim(go$par, gnll, control = list(reltol = 1e-15, maxit = 5000))
  cases <- c(cases, paste0("\"", f, "\":", obj(
    weibull = obj(k = num(1 / sw$scale), lambda = num(exp(coef(sw)[[1]])), loglik = num(sw$loglik[1])),
    lognormal = obj(mu = num(coef(sl)[[1]]), sigma = num(sl$scale), loglik = num(sl$loglik[1])),
    exponential = obj(rate = num(rate), loglik = num(sum(status) * log(rate) - rate * sum(time))),
    gamma = obj(alpha = num(exp(go$par[1])), beta = num(exp(go$par[2])), loglik = num(-go$value)))))
  # Weibull + never-settling share p: settled f(t)(1 - p), pending
  # p + (1 - p) S(t); parameters log k, log lambda, logit p.
  cnll <- function(q) {
    k <- exp(q[1]); l <- exp(q[2]); p <- plogis(q[3])
    -sum(ifelse(status == 1, log1p(-p) + dweibull(time, k, l, log = TRUE),
                log(p + (1 - p) * exp(-(time / l)^k))))
  }
  cu <- optim(c(log(1 / sw$scale), coef(sw)[[1]], -3), cnll, control = list(reltol = 1e-14, maxit = 5000))
  cu <- optim(cu$par, cnll, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000))
  cat(sprintf("%s: weibull k %.6g lambda %.6g loglik %.8g; with a stuck share: k %.6g lambda %.6g stuck %.6g loglik %.8g\n",
              f, 1 / sw$scale, exp(coef(sw)[[1]]), sw$loglik[1], exp(cu$par[1]), exp(cu$par[2]), plogis(cu$par[3]), -cu$value))
}
writeLines(paste0("{", paste(cases, collapse = ",\n"), "}"), "pendingtail.json")
