# mixture_reference.R writes mixture_reference.json: samples from known
# lognormal mixtures and their maximum-likelihood fits, found by direct
# numerical maximisation of the mixture log-likelihood with R's optim
# (Nelder–Mead, then BFGS to convergence) from the true parameters: an
# implementation independent of the EM in ../mixture_em.go, which the
# tests compare against it. Run from fit/testdata:
#
#   Rscript mixture_reference.R
#
# Needs base R only (>= 4.2).
#
# Cases:
#   uncensored   two components, exact times (continuous data)
#   cure         two components and a share that never settles, right-
#                censored at uniform observation ages (10 s to 300 s)
#   rounded      two components, times rounded to 0.01 s, all below
#                10 s: every item is its resolution cell [x − δ/2, x + δ/2]
#                (the grouped-data likelihood MixtureEM uses below 1000δ)

num <- function(x) sprintf("%.17g", x)
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")

# par: logits of the weights (K − 1, plus 1 for the stuck share), mu (K),
# log sigma (K). Weights by softmax with the first fixed at 0.
unpack <- function(par, K, cure) {
  nl <- K - 1 + cure
  e <- exp(c(0, par[seq_len(nl)]))
  w <- e / sum(e)
  list(pi = w[1:K], stuck = if (cure) w[K + 1] else 0,
       mu = par[nl + 1:K], sigma = exp(par[nl + K + 1:K]))
}
pack <- function(pi, stuck, mu, sigma, cure) {
  w <- if (cure) c(pi, stuck) else pi
  c(log(w[-1] / w[1]), mu, log(sigma))
}

loglik <- function(par, K, cure, x, settled, delta) {
  p <- unpack(par, K, cure)
  ll <- 0
  for (i in seq_along(x)) {
    if (!settled[i]) {
      ll <- ll + log(p$stuck + sum(p$pi * plnorm(x[i], p$mu, p$sigma, lower.tail = FALSE)))
    } else if (delta > 0) {
      ll <- ll + log(sum(p$pi * (plnorm(x[i] + delta / 2, p$mu, p$sigma) - plnorm(x[i] - delta / 2, p$mu, p$sigma))))
    } else {
      ll <- ll + log(sum(p$pi * dlnorm(x[i], p$mu, p$sigma)))
    }
  }
  ll
}

fit <- function(x, settled, delta, K, cure, start) {
  f <- function(par) -loglik(par, K, cure, x, settled, delta)
  o <- optim(start, f, method = "Nelder-Mead", control = list(maxit = 20000, reltol = 1e-14))
  for (r in 1:3) o <- optim(o$par, f, method = "BFGS", control = list(maxit = 10000, reltol = 1e-16))
  p <- unpack(o$par, K, cure)
  ord <- order(p$mu)
  list(pi = p$pi[ord], stuck = p$stuck, mu = p$mu[ord], sigma = p$sigma[ord], loglik = -o$value)
}

case <- function(name, x, settled, delta, K, cure, truth) {
  start <- pack(truth$pi, truth$stuck, truth$mu, truth$sigma, cure)
  r <- fit(x, settled, delta, K, cure, start)
  sprintf('{"name":"%s","x":%s,"settled":%s,"delta":%s,"k":%d,"stuck_fitted":%s,"weight":%s,"mu":%s,"sigma":%s,"stuck":%s,"loglik":%s}',
          name, vec(x), paste0("[", paste(ifelse(settled, "true", "false"), collapse = ","), "]"), num(delta), K,
          if (cure) "true" else "false", vec(r$pi), vec(r$mu), vec(r$sigma), num(r$stuck), num(r$loglik))
}

draw <- function(n, pi, mu, sigma) {
  k <- sample(seq_along(pi), n, replace = TRUE, prob = pi)
  rlnorm(n, mu[k], sigma[k])
}

set.seed(11)
t1 <- list(pi = c(0.35, 0.65), stuck = 0, mu = log(c(0.8, 12)), sigma = c(0.5, 0.7))
x1 <- draw(2000, t1$pi, t1$mu, t1$sigma)
c1 <- case("uncensored", x1, rep(TRUE, length(x1)), 0, 2, FALSE, t1)

t2 <- list(pi = c(0.4, 0.55), stuck = 0.05, mu = log(c(2, 30)), sigma = c(0.6, 0.5))
n2 <- 2000
cured <- runif(n2) < t2$stuck
t <- draw(n2, t2$pi / sum(t2$pi), t2$mu, t2$sigma)
t[cured] <- Inf
age <- runif(n2, 10, 300)
settled2 <- t <= age
x2 <- ifelse(settled2, t, age)
c2 <- case("cure", x2, settled2, 0, 2, TRUE, t2)

t3 <- list(pi = c(0.5, 0.5), stuck = 0, mu = log(c(0.3, 1.5)), sigma = c(0.4, 0.3))
x3 <- round(draw(1500, t3$pi, t3$mu, t3$sigma), 2)
stopifnot(min(x3) > 0, max(x3) < 10)
c3 <- case("rounded", x3, rep(TRUE, length(x3)), 0.01, 2, FALSE, t3)

writeLines(paste0('{"r_version":"', R.version.string, '","cases":[', paste(c(c1, c2, c3), collapse = ",\n"), "]}"),
           "mixture_reference.json")
