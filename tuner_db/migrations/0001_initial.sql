-- Version 1 of the tuning database, kept as the base the later migrations step from. New files
-- are created from ../schema.sql; this file is what a version-1 database looked like.

CREATE TABLE gpus (
  id                INTEGER PRIMARY KEY,
  name              TEXT    NOT NULL,
  uuid              TEXT    NOT NULL,
  arch              TEXT    NOT NULL,
  sm_count          INTEGER NOT NULL,
  l2_bytes          INTEGER NOT NULL,
  default_clock_mhz INTEGER NOT NULL,
  UNIQUE (name, uuid, arch, sm_count)
);

CREATE TABLE software (
  id      INTEGER PRIMARY KEY,
  driver  TEXT NOT NULL,
  runtime TEXT NOT NULL,
  nvrtc   TEXT NOT NULL,
  cublas  TEXT NOT NULL,
  UNIQUE (driver, runtime, nvrtc, cublas)
);

CREATE TABLE problems (
  id     INTEGER PRIMARY KEY,
  transa TEXT    NOT NULL CHECK (transa IN ('N', 'T')),
  transb TEXT    NOT NULL CHECK (transb IN ('N', 'T')),
  m      INTEGER NOT NULL CHECK (m >= 0),
  n      INTEGER NOT NULL CHECK (n >= 0),
  k      INTEGER NOT NULL CHECK (k >= 0),
  lda    INTEGER NOT NULL CHECK (lda >= 1),
  ldb    INTEGER NOT NULL CHECK (ldb >= 1),
  ldc    INTEGER NOT NULL CHECK (ldc >= 1),
  align  INTEGER NOT NULL CHECK (align IN (1, 2, 4)),
  UNIQUE (transa, transb, m, n, k, lda, ldb, ldc, align)
);

CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  started_at   TEXT    NOT NULL,
  finished_at  TEXT    NOT NULL DEFAULT '',
  status       TEXT    NOT NULL DEFAULT 'running',
  host         TEXT    NOT NULL,
  command      TEXT    NOT NULL,
  clock_policy TEXT    NOT NULL,
  seed         INTEGER NOT NULL,
  notes        TEXT    NOT NULL,
  gpu_id       INTEGER NOT NULL REFERENCES gpus (id),
  software_id  INTEGER NOT NULL REFERENCES software (id)
);

CREATE TABLE candidates (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER REFERENCES runs (id) ON DELETE SET NULL,
  problem_id          INTEGER NOT NULL REFERENCES problems (id),
  gpu_id              INTEGER NOT NULL REFERENCES gpus (id),
  software_id         INTEGER NOT NULL REFERENCES software (id),
  family              TEXT    NOT NULL,
  config              TEXT    NOT NULL,
  template_hash       TEXT    NOT NULL,
  compile_options     TEXT    NOT NULL,
  outcome             TEXT    NOT NULL,
  message             TEXT    NOT NULL,
  registers           INTEGER NOT NULL,
  spill_bytes         INTEGER NOT NULL,
  smem_bytes          INTEGER NOT NULL,
  screen_median_us    REAL,
  screen_min_us       REAL,
  screen_mean_us      REAL,
  screen_stdev_us     REAL,
  screen_samples      INTEGER,
  screen_discarded    INTEGER,
  screen_sm_clock_mhz REAL,
  final_median_us     REAL,
  final_min_us        REAL,
  final_mean_us       REAL,
  final_stdev_us      REAL,
  final_samples       INTEGER,
  final_discarded     INTEGER,
  final_sm_clock_mhz  REAL,
  cublas_us           REAL,
  UNIQUE (problem_id, gpu_id, software_id, family, config, template_hash)
);
CREATE INDEX candidates_run ON candidates (run_id);

CREATE TABLE winners (
  id              INTEGER PRIMARY KEY,
  problem_id      INTEGER NOT NULL REFERENCES problems (id),
  gpu_name        TEXT    NOT NULL,
  gpu_arch        TEXT    NOT NULL,
  gpu_sm_count    INTEGER NOT NULL,
  gpu_id          INTEGER NOT NULL REFERENCES gpus (id),
  software_id     INTEGER NOT NULL REFERENCES software (id),
  family          TEXT    NOT NULL,
  config          TEXT    NOT NULL,
  template_hash   TEXT    NOT NULL,
  compile_options TEXT    NOT NULL,
  time_us         REAL    NOT NULL,
  cublas_us       REAL    NOT NULL,
  tie_band        REAL    NOT NULL,
  candidate_id    INTEGER REFERENCES candidates (id) ON DELETE SET NULL,
  updated_at      TEXT    NOT NULL,
  UNIQUE (problem_id, gpu_name, gpu_arch, gpu_sm_count)
);
