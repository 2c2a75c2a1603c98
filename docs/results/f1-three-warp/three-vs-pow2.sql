-- Per problem of the retune (new.db): F1's best screened time with a block tile of 3 x 2^j
-- (BM or BN 96 or 192) and with tiles of 2^j, how many of F1's measured candidates were 3 x 2^j,
-- the best screened time of any candidate and cuBLAS's. sqlite3 new.db < three-vs-pow2.sql
WITH f1 AS (
  SELECT c.problem_id, c.screen_median_us AS us, c.cublas_us,
         (c.config LIKE '%BM=96,%' OR c.config LIKE '%BN=96,%' OR c.config LIKE '%BM=192,%' OR
          c.config LIKE '%BN=192,%') AS three
  FROM candidates c WHERE c.outcome = 'ok' AND c.family = 'f1_simt')
SELECT p.transa || p.transb || ' ' || p.m || 'x' || p.n || 'x' || p.k AS problem,
       round(min(CASE WHEN three THEN us END), 1) AS three_us,
       round(min(CASE WHEN NOT three THEN us END), 1) AS pow2_us,
       sum(three) || '/' || count(*) AS three_of_f1,
       round((SELECT min(screen_median_us) FROM candidates d
              WHERE d.problem_id = p.id AND d.outcome = 'ok'), 1) AS best_any_us,
       round(max(f1.cublas_us), 1) AS cublas_us
FROM f1 JOIN problems p ON p.id = f1.problem_id GROUP BY p.id ORDER BY p.id;
