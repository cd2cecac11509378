package ingest

import (
	"github.com/pollfit/pollfit/internal/bulk"
)

// labels are a batch's segment labels (local to it): a byte each while
// every one is below 256, as in the merged sample (Sample.Segment8), and
// four once one is not (widened once). A Parquet row group is 10⁶ rows
// or so, and each worker holds one: 1 MB of labels, not 4.
type labels struct {
	narrow []uint8
	wide   []int32 // every label once widened (not nil then); narrow is unused then
}

// widened reports whether the labels are four bytes each.
func (l *labels) widened() bool { return l.wide != nil }

// add appends label g.
func (l *labels) add(g int32) {
	if !l.widened() {
		if uint32(g) < 1<<8 {
			l.narrow = append(l.narrow, uint8(g))
			return
		}
		l.wide = make([]int32, len(l.narrow), max(2*len(l.narrow), 1<<10))
		for i, x := range l.narrow {
			l.wide[i] = int32(x)
		}
	}
	l.wide = append(l.wide, g)
}

// len returns the number of labels.
func (l *labels) len() int {
	if l.widened() {
		return len(l.wide)
	}
	return len(l.narrow)
}

// move sets label k to label i.
func (l *labels) move(k, i int) {
	if l.widened() {
		l.wide[k] = l.wide[i]
	} else {
		l.narrow[k] = l.narrow[i]
	}
}

// truncate keeps the first k labels.
func (l *labels) truncate(k int) {
	if l.widened() {
		l.wide = l.wide[:k]
	} else {
		l.narrow = l.narrow[:k]
	}
}

// segment returns the batch-local index of segment label s.
func (b *batch) segment(s []byte) int32 {
	// Most inputs have a handful of segments: a linear scan beats hashing.
	if len(b.segNames) <= 8 {
		for i, n := range b.segNames {
			if n == unsafeString(s) {
				return int32(i)
			}
		}
	} else if id, ok := b.segIdx[unsafeString(s)]; ok {
		return id
	}
	if b.segIdx == nil {
		b.segIdx = map[string]int32{}
	}
	name := string(s)
	id := int32(len(b.segNames))
	b.segNames = append(b.segNames, name)
	b.segIdx[name] = id
	return id
}

// addLabels merges b's segment names and labels into the sample's: a
// byte a label (Segment8) while there are at most 256 names, widened
// once into Segment when a 257th comes: at 10⁷ rows 10 MB of labels
// instead of 40 (docs/performance.md, Memory).
func (m *merger) addLabels(b *batch) {
	if m.segIdx == nil {
		m.segIdx = map[string]int32{}
		if m.s.Segment8 == nil { // else made for readParquet's windows
			m.s.Segment8 = bulk.Make[uint8](0, cap(m.s.Times))
		}
	}
	m.remap = m.remap[:0]
	for _, name := range b.segNames {
		id, ok := m.segIdx[name]
		if !ok {
			id = int32(len(m.s.SegmentNames))
			m.s.SegmentNames = append(m.s.SegmentNames, name)
			m.segIdx[name] = id
		}
		m.remap = append(m.remap, id)
	}
	if m.s.Segment8 != nil && len(m.s.SegmentNames) > 1<<8 {
		wide := bulk.Make[int32](len(m.s.Segment8), cap(m.s.Times))
		for i, g := range m.s.Segment8 {
			wide[i] = int32(g)
		}
		m.s.Segment, m.s.Segment8 = wide, nil
	}
	// A batch is widened only past 256 names of its own, and the sample
	// then is too: the narrow sample takes narrow batches' labels alone.
	switch l := &b.seg; {
	case m.s.Segment8 != nil:
		for _, g := range l.narrow {
			m.s.Segment8 = append(m.s.Segment8, uint8(m.remap[g]))
		}
	case l.widened():
		for _, g := range l.wide {
			m.s.Segment = append(m.s.Segment, m.remap[g])
		}
	default:
		for _, g := range l.narrow {
			m.s.Segment = append(m.s.Segment, m.remap[g])
		}
	}
}
