//go:build cgo

package main

import (
	"database/sql"
	"fmt"
	"strings"
)

// Observed is when observation of the payments table ends, the export
// time the recipes of docs/scale.md take the age of a pending row at.
const Observed = "2025-03-02 01:00:00"

// paymentsSQL creates the payments table of rows rows. Each row i draws
// its uniforms from DuckDB's hash of 8i + k, k = 0…5 (hash(i, k) is not
// used: its values for one i are correlated, ρ ≈ 0.5), so the table is the
// same whatever the number of threads. Normal deviates are Box–Muller's,
// z = √(−2 ln(1 − u₁)) cos(2π u₂) (Box & Muller 1958).
const paymentsSQL = `CREATE OR REPLACE TABLE payments AS
WITH u AS (
  SELECT i,
         (hash(8 * i + 0) >> 11) * pow(2, -53) AS u_created,
         (hash(8 * i + 1) >> 11) * pow(2, -53) AS u_method,
         (hash(8 * i + 2) >> 11) * pow(2, -53) AS u_part,
         (hash(8 * i + 3) >> 11) * pow(2, -53) AS u_z1,
         (hash(8 * i + 4) >> 11) * pow(2, -53) AS u_z2,
         (hash(8 * i + 5) >> 11) * pow(2, -53) AS u_outcome
  FROM range({{rows}}) r(i)
), d AS (
  SELECT i, u_outcome, u_part,
         TIMESTAMP '2025-03-01 00:00:00' + to_microseconds(CAST(floor(u_created * 90000e6) AS BIGINT)) AS created_at,
         CASE WHEN u_method < 0.3 THEN 'wallet' WHEN u_method < 0.8 THEN 'momo' ELSE 'card' END AS method,
         sqrt(-2 * ln(1 - u_z1)) * cos(2 * pi() * u_z2) AS z
  FROM u
), s AS (
  SELECT i, created_at, method, u_outcome,
         CASE method
           WHEN 'wallet' THEN CASE WHEN u_part < 0.05 THEN 0 WHEN u_part < 0.995 THEN 0.4 * exp(0.5 * z) END
           WHEN 'momo'   THEN CASE WHEN u_part < 0.84 THEN 13 * exp(0.5 * z) WHEN u_part < 0.99 THEN 150 * exp(0.8 * z) END
           ELSE               CASE WHEN u_part < 0.97 THEN 3.5 * exp(0.6 * z) END
         END AS settle_s
  FROM d
), e AS (
  SELECT i, created_at, method, u_outcome,
         created_at + to_microseconds(CAST(round(settle_s * 1e6) AS BIGINT)) AS done
  FROM s
)
SELECT i AS payment_id, method, created_at,
       CASE WHEN done <= TIMESTAMP '{{observed}}' THEN done END AS settled_at,
       CASE WHEN done IS NULL OR done > TIMESTAMP '{{observed}}' THEN 'pending'
            WHEN u_outcome < 0.01 THEN 'cancelled'
            WHEN u_outcome < 0.04 THEN 'failed'
            ELSE 'succeeded' END AS status
FROM e`

// Generate creates the table payments(payment_id BIGINT, method VARCHAR,
// created_at TIMESTAMP, settled_at TIMESTAMP, status VARCHAR) of rows rows
// in db, replacing any table of that name, with this model:
//
//	created_at  uniform on [2025-03-01 00:00, 2025-03-02 01:00), to the µs
//	method      wallet 0.30, momo 0.50, card 0.20
//	wallet      0.05 instant (settle time exactly 0), 0.945 LogNormal(0.4 s, σ 0.5), 0.005 never settle
//	momo        0.84 LogNormal(13 s, σ 0.5), 0.15 LogNormal(150 s, σ 0.8), 0.01 never settle
//	card        0.97 LogNormal(3.5 s, σ 0.6), 0.03 never settle
//	status      pending when not settled by Observed (settled_at NULL),
//	            else cancelled 0.01, failed 0.03, succeeded 0.96
//
// LogNormal(m, σ) is m·exp(σZ), Z ~ N(0, 1); settle times are rounded to
// the microsecond. A row is right-censored when it never settles or when
// it would settle after Observed: the recipes take its age then.
func Generate(db *sql.DB, rows int64) error {
	if rows < 0 {
		panic(fmt.Sprintf("duckdb: Generate: rows %d < 0", rows))
	}
	q := strings.NewReplacer("{{rows}}", fmt.Sprint(rows), "{{observed}}", Observed).Replace(paymentsSQL)
	if _, err := db.Exec(q); err != nil {
		return fmt.Errorf("generate payments: %w", err)
	}
	return nil
}

// WriteParquet copies the payments table to a Parquet file at path.
func WriteParquet(db *sql.DB, path string) error {
	if _, err := db.Exec(fmt.Sprintf("COPY payments TO %s (FORMAT parquet)", quoteString(path))); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteBins runs query, a recipe of docs/scale.md, as the docs say to:
// COPY (query) TO 'path' (HEADER), path "/dev/stdout" for a pipe.
func WriteBins(db *sql.DB, query, path string) error {
	if _, err := db.Exec(fmt.Sprintf("COPY (\n%s\n) TO %s (HEADER)", query, quoteString(path))); err != nil {
		return fmt.Errorf("run the recipe: %w", err)
	}
	return nil
}

// quoteString writes s as an SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
