// Package fit estimates the distribution of settle times from a
// sample.Sample: density, CDF, survival, hazard on a grid, with point
// masses (atoms) and deadline spikes kept apart from the smooth part.
//
// Estimate is the entry point. Its default is a Gaussian kernel density
// estimate of ln t (kde.go) with Botev's improved Sheather–Jones
// bandwidth (bandwidth.go picks the rule: isj.go, sj.go, on the weighted
// values of wsample.go); right-censored items enter through the
// Kaplan–Meier estimate (km.go), atoms and spikes are found first
// (atoms.go, spikes.go), and the mass beyond the horizon is the stuck
// share. Parametric families fitted by maximum likelihood
// (parametric.go) and lognormal mixtures fitted by EM (mixture_em.go,
// on the data of mixture_data.go) are the alternatives. The result, a *Density, is what package optimize
// derives schedules from; its KS distance and held-out scores say how
// well it fits (ks.go, holdout.go). Results carry Warnings about few
// samples, ties and heavy censoring instead of logging them.
//
// Reading the logs is package ingest's job, which returns the
// sample.Sample fit takes: fit imports package sample, not the readers
// and their codecs. Drawing is the command's: fit exports the curves a figure
// reads (EmpiricalSteps, SettledMasses, Density.SpikePDFs) and imports
// no plotting package.
package fit
