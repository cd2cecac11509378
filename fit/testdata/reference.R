# reference.R writes the R reference values that the fit tests compare
# against (reference.json). Run from fit/testdata:
#
#   Rscript reference.R
#
# Needs R (>= 4.2) with the recommended packages survival and MASS
# (Debian: apt-get install r-base-core r-cran-survival r-cran-mass).
# Inputs are the fixtures/ copies of the Julia CI (MIT) and NASA iPSC
# (Parallel Workloads Archive, Feitelson; cite the archive) datasets;
# the subsets used are written into reference.json so the tests do not
# depend on the fixtures changing.
suppressPackageStartupMessages({ library(survival); library(MASS) })

julia <- read.csv("../../fixtures/julia_ci_job_durations.csv", stringsAsFactors = FALSE)
nasa <- read.csv("../../fixtures/nasa_ipsc_1993_jobs.csv")

num <- function(x) sprintf("%.17g", x)
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")
obj <- function(...) {
  a <- list(...)
  paste0("{", paste(sprintf("\"%s\":%s", names(a), unlist(a)), collapse = ","), "}")
}
str <- function(s) sprintf("\"%s\"", s)

# density(x) with R's defaults; x is the raw times, transformed (log) in R
# and again by the test. (n = 512, cut = 3, gaussian) and bw rules.
dens_case <- function(name, raw, transform = "none", w = NULL) {
  x <- if (transform == "log") log(raw) else raw
  nrd0 <- bw.nrd0(x); nrd <- bw.nrd(x)
  sj <- bw.SJ(x)                        # R's default tolerance (0.1 * lower)
  sj_tight <- bw.SJ(x, tol = 1e-10)      # the root itself
  d0 <- if (is.null(w)) density(x) else density(x, weights = w)
  dsj <- if (is.null(w)) density(x, bw = "SJ") else density(x, bw = "SJ", weights = w)
  obj(name = str(name), x = vec(raw), transform = str(transform), w = if (is.null(w)) "null" else vec(w),
      bw_nrd0 = num(nrd0), bw_nrd = num(nrd), bw_sj = num(sj), bw_sj_tight = num(sj_tight),
      nrd0_x = vec(d0$x), nrd0_y = vec(d0$y), sj_x = vec(dsj$x), sj_y = vec(dsj$y))
}

job <- julia$duration_s[julia$job == ":linux: test x86_64-linux-gnu"]
set.seed(4)
nasa_pos <- nasa$run_time_s[nasa$run_time_s > 0][1:3000]
wts <- runif(length(job)); wts <- wts / sum(wts)
cases <- c(
  dens_case("julia_linux_test", job),                   # n = 105: R's exact pair counts in bw.SJ
  dens_case("julia_all_log", julia$duration_s, "log"),    # n = 8640: binned pair counts (nb = 1000)
  dens_case("nasa_log_3000", nasa_pos, "log"),
  dens_case("julia_linux_test_weighted", job, w = wts)
)

# Kaplan-Meier with Greenwood errors on a censored NASA subset: the first
# 400 positive run times, censored by an independent uniform follow-up.
set.seed(7)
t0 <- nasa_pos[1:400]
follow <- runif(400, 0, 2 * median(t0))
time <- pmin(t0, round(follow)); status <- as.integer(t0 <= round(follow))
fit <- survfit(Surv(time, status) ~ 1)
s <- summary(fit)
km <- obj(time = vec(time), status = vec(status), t = vec(s$time), surv = vec(s$surv),
          std_err = vec(s$std.err), n_risk = vec(s$n.risk), n_event = vec(s$n.event))

# Maximum likelihood: MASS::fitdistr without censoring, survreg with it.
ml_case <- function(name, x) {
  ln <- fitdistr(x, "lognormal")$estimate
  wb <- suppressWarnings(fitdistr(x, "weibull", control = list(reltol = 1e-12)))$estimate
  # fitdistr's gamma comes from optim and stops short on the tight Julia
  # cluster (log-likelihood 0.009 below the optimum), so the reference is
  # the root of the profile equation log(a) - digamma(a) = log(mean) - mean(log).
  s <- log(mean(x)) - mean(log(x))
  a <- uniroot(function(a) log(a) - digamma(a) - s, c(1e-3, 1e6), tol = 1e-14)$root
  ga <- c(shape = a, rate = a)
  ex <- fitdistr(x, "exponential")$estimate
  obj(name = str(name), x = vec(x),
      lognormal = obj(mu = num(ln[["meanlog"]]), sigma = num(ln[["sdlog"]])),
      weibull = obj(k = num(wb[["shape"]]), lambda = num(wb[["scale"]])),
      gamma = obj(alpha = num(ga[["shape"]]), beta = num(ga[["rate"]] / mean(x))),  # rate 1/s
      exponential = obj(rate = num(ex[["rate"]])))
}
sw <- survreg(Surv(time, status) ~ 1, dist = "weibull", control = survreg.control(rel.tolerance = 1e-12))
sl <- survreg(Surv(time, status) ~ 1, dist = "lognormal", control = survreg.control(rel.tolerance = 1e-12))
se <- survreg(Surv(time, status) ~ 1, dist = "exponential", control = survreg.control(rel.tolerance = 1e-12))
# Censored gamma: no packaged fitter in R's recommended set; maximise the
# same likelihood with optim to a tight tolerance.
gnll <- function(p) -sum(ifelse(status == 1, dgamma(time, exp(p[1]), exp(p[2]), log = TRUE),
                                 pgamma(time, exp(p[1]), exp(p[2]), lower.tail = FALSE, log.p = TRUE)))
go <- optim(c(0, -log(mean(time))), gnll, control = list(reltol = 1e-14, maxit = 5000))
go <- optim(go$par, gnll, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000))
cens <- obj(weibull = obj(k = num(1 / sw$scale), lambda = num(exp(coef(sw)[[1]]))),
            lognormal = obj(mu = num(coef(sl)[[1]]), sigma = num(sl$scale)),
            exponential = obj(rate = num(exp(-coef(se)[[1]]))),
            gamma = obj(alpha = num(exp(go$par[1])), beta = num(exp(go$par[2]))))

# Tie-heavy samples: R's rules on the values as recorded, in
# seconds and on their logarithms. bw.SJ stops ("sample is too sparse to
# find TD") when the quartiles are equal; that is written as null. bw.nrd
# is 0 then (it has no fallback), bw.nrd0 falls back to the sd.
#
# bw_sj_derounded is bw.SJ (tol = 1e-10) of the times de-rounded as
# pollfit does before smoothing (fit/prebin.go, deround): item i (from 0)
# moved by resolution * (frac(i * phi) - 1/2), phi = 0.618..., and kept
# at least min(x, resolution)/2.
deround <- function(x, d) {
  w <- ((seq_along(x) - 1) * 0.6180339887498949) %% 1
  pmax(x + d * (w - 0.5), pmin(x, d) / 2)
}
tie_case <- function(name, x, resolution) {
  one <- function(v, vd) {
    sj <- tryCatch(bw.SJ(v), error = function(e) NA)
    sjt <- tryCatch(bw.SJ(v, tol = 1e-10), error = function(e) NA)
    sjd <- tryCatch(bw.SJ(vd, tol = 1e-10), error = function(e) NA)
    nul <- function(b) if (is.na(b)) "null" else num(b)
    obj(bw_nrd0 = num(bw.nrd0(v)), bw_nrd = num(bw.nrd(v)), bw_sj = nul(sj), bw_sj_tight = nul(sjt),
        bw_sj_derounded = nul(sjd))
  }
  xd <- deround(x, resolution)
  obj(name = str(name), x = vec(x), resolution = num(resolution), linear = one(x, xd), log = one(log(x), log(xd)))
}
set.seed(11)
ties <- c(
  tie_case("1000ms_x4_2001ms", c(1, 1, 1, 1, 2.001), 0.001),  # whole ms, in s
  tie_case("all_but_one_equal_100", c(rep(3, 99), 7), 1),
  tie_case("few_distinct_300", sample(c(1, 2, 3, 5, 8), 300, replace = TRUE, prob = c(.1, .4, .3, .15, .05)), 1),
  tie_case("whole_seconds_2000", round(rlnorm(2000, 3, 0.5)), 1),
  tie_case("whole_ms_1000", round(rlnorm(1000, 0, 1), 3), 0.001),
  tie_case("two_thirds_equal_200", sample(c(rep(20, 130), pmax(1, round(rlnorm(70, 3, 1))))), 1)
)

out <- paste0("{\"r_version\":", str(R.version.string), ",\n\"density\":[", paste(cases, collapse = ",\n"), "],\n\"km\":", km,
              ",\n\"ml\":[", ml_case("julia_linux_test", job), ",\n", ml_case("nasa_3000", nasa_pos), "],\n\"ml_censored\":", cens,
              ",\n\"ties\":[", paste(ties, collapse = ",\n"), "]}\n")
writeLines(out, "reference.json")
