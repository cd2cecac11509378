// Package pq reads flat Parquet files: the footer, the schema's
// top-level columns, and column chunks page by page into typed values.
//
// It reads what ingest needs and nothing more, so that pollfit's build
// carries no Arrow: arrow-go's Parquet reader imports its compute
// kernels (6.7 MB of machine code kept by their init functions) even
// through the low-level file reader, and its pqarrow layer brings Arrow
// Flight, gRPC and protobuf (docs/performance.md, "Build and binary").
// The format is parquet-format's (github.com/apache/parquet-format):
// the Thrift compact footer and page headers, data pages v1 and v2,
// dictionary pages, the encodings PLAIN, RLE / bit-packing hybrid,
// RLE_DICTIONARY, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT, and the codecs Snappy, gzip,
// Brotli, Zstandard, LZ4 and LZ4_RAW. Nested columns (groups, repeated
// fields) are described but not read; encrypted files and LZO are
// refused with ErrUnsupported.
//
// Every length in the file is checked against the bytes that hold it
// before anything is allocated for it, and no buffer grows beyond
// MinAllocBound or 16 times the file's size, so that a damaged file
// gives an error, never a crash or a runaway allocation.
package pq
