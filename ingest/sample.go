package ingest

import "github.com/pollfit/pollfit/sample"

// Sample is a set of observed settle times, one entry per item (row):
// package sample's Sample, which the readers return, named here so that
// callers of Read need not import package sample.
type Sample = sample.Sample

// Segmentation is how a sample divides by segment: see sample.Segmentation.
type Segmentation = sample.Segmentation

// MaxSeconds is the longest settle time read, in seconds: see
// sample.MaxSeconds. A longer value is ErrOutOfRange. Values far below it
// can still be a unit mistake: the reader warns about implausible
// magnitudes (Report.Warnings).
const MaxSeconds = sample.MaxSeconds

// EmptySegment names the segment of rows whose segment value is empty,
// unless the data has a segment so named: see sample.EmptySegment.
const EmptySegment = sample.EmptySegment
