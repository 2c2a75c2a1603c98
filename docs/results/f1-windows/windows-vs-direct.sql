-- Per problem of the retune (new.db): F1's best screened time with C in sector-aligned windows
-- (CWIN = 1) and without, how many of F1's measured candidates had CWIN = 1, the best screened
-- time of any candidate, cuBLAS's, and the winner's family. sqlite3 new.db < windows-vs-direct.sql
WITH f1 AS (
  SELECT c.problem_id, c.screen_median_us AS us, c.cublas_us, c.config LIKE '%CWIN=1%' AS win
  FROM candidates c WHERE c.outcome = 'ok' AND c.family = 'f1_simt')
SELECT p.transa || p.transb || ' ' || p.m || 'x' || p.n || 'x' || p.k || ' ldc=' || p.ldc AS problem,
       round(min(CASE WHEN win THEN us END), 1) AS windows_us,
       round(min(CASE WHEN NOT win THEN us END), 1) AS direct_us,
       sum(win) || '/' || count(*) AS windows_of_f1,
       round((SELECT min(screen_median_us) FROM candidates d
              WHERE d.problem_id = p.id AND d.outcome = 'ok'), 1) AS best_any_us,
       round(max(f1.cublas_us), 1) AS cublas_us,
       (SELECT w.family FROM winners w WHERE w.problem_id = p.id) AS winner
FROM f1 JOIN problems p ON p.id = f1.problem_id GROUP BY p.id ORDER BY p.id;
