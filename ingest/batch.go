package ingest

// batch collects the rows of one chunk (CSV) or row group (Parquet) with
// segment labels local to it; merger folds batches into one Sample.
type batch struct {
	times    []float64
	cens     []bool // nil until the first censored row
	censAt   []bool // where cens starts, when not nil: the batch's window of the sample's flags (readParquet), zero until written
	weights  []float64
	seg      labels
	created  []int64   // with timestamps (plan.created): creation instants
	lower    []float64 // interval input (plan.interval): each item's lower bound
	segNames []string
	segIdx   map[string]int32

	read, used, excluded, censored int
	intervals                      int // items in an interval (Report.Intervals)
	blank                          int // blank lines skipped (CSV)
	items                          float64
	dropped                        [nReasons]int

	statuses []string    // distinct status values of every 64th row, at most maxStatuses
	lines    int         // CSV lines consumed
	err      *ParseError // first error, Row local to the batch

	ids      []uint64     // with Dedupe: the id hash of each item
	sampled  []sampledRow // rows sampled for the repeat count
	sampling bool         // the rows were offered to the repeat sampler
	lim      uint64       // the largest fingerprint sampled (limit)
	seen     *[seenWords]uint64
	distinct int       // bits set in seen
	zeroed   negatives // negative durations made 0
	// negative is the negative duration of the row that failed, noted
	// for plan.failed, which counts it in negDropped when it drops it.
	negative   float64
	negDropped negatives
	first      int64 // the first timestamp read (epoch timestamps)
	hasFirst   bool
	// zoneless counts, per timestamp column, the text timestamps without
	// a zone (read as UTC); zonelessEx is the first of them.
	zoneless   [nRoles]int
	zonelessEx [nRoles]string

	// at is the position of the row being read: the CSV line within the
	// block, or the row within the Parquet row group. When the batch is
	// merged, file, base and rowGroup place it: CSV line base + at, or
	// row at of row group rowGroup (-1 for CSV).
	at             int
	file           string
	base, rowGroup int
	bins           []binRow  // binned input: the bins read
	polls          []pollRow // poll log: the polls read (created: their starts)
}

// maxStatuses bounds the status values kept for warnings.
const maxStatuses = 8

func (b *batch) reset() {
	*b = batch{times: b.times[:0], seg: labels{narrow: b.seg.narrow[:0]}, created: b.created[:0], lower: b.lower[:0], segIdx: b.segIdx, ids: b.ids[:0], sampled: b.sampled[:0], seen: b.seen, bins: b.bins[:0], polls: b.polls[:0]}
	clear(b.segIdx)
	if b.seen != nil {
		clear(b.seen[:])
	}
}

// push appends one item.
func (b *batch) push(t float64, censored bool, w float64, weighted bool, seg int32, hasSeg bool) {
	if censored && b.cens == nil {
		if b.censAt != nil {
			b.cens = b.censAt[:len(b.times)]
		} else {
			b.cens = make([]bool, len(b.times), cap(b.times))
		}
	}
	if weighted && b.weights == nil {
		b.weights = make([]float64, len(b.times))
		for i := range b.weights {
			b.weights[i] = 1
		}
	}
	b.times = append(b.times, t)
	if b.cens != nil {
		b.cens = append(b.cens, censored)
	}
	if b.weights != nil {
		b.weights = append(b.weights, w)
	}
	if hasSeg {
		b.seg.add(seg)
	}
}
