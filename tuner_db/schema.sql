-- The tuning database, current schema (version 3): what a new file is created with. Older files
-- are brought here by migrations/NNNN_*.sql; the code sets PRAGMA user_version. Columns a
-- migration added stay last in their table so both paths give the same tables.

-- A GPU as the tuner saw it; uuid tells units of one model apart.
CREATE TABLE gpus (
  id                INTEGER PRIMARY KEY,
  name              TEXT    NOT NULL,  -- "NVIDIA H200"
  uuid              TEXT    NOT NULL,
  arch              TEXT    NOT NULL,  -- "sm_90"
  sm_count          INTEGER NOT NULL,
  l2_bytes          INTEGER NOT NULL,
  default_clock_mhz INTEGER NOT NULL,
  UNIQUE (name, uuid, arch, sm_count)
);

-- Versions of everything that changes generated code or the reference timing.
CREATE TABLE software (
  id      INTEGER PRIMARY KEY,
  driver  TEXT NOT NULL,
  runtime TEXT NOT NULL,
  nvrtc   TEXT NOT NULL,
  cublas  TEXT NOT NULL,
  UNIQUE (driver, runtime, nvrtc, cublas)
);

-- A GEMM problem: column-major, cuBLAS conventions; align is the alignment class in floats.
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

-- One invocation of the tuner, with its provenance.
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  started_at   TEXT    NOT NULL,  -- ISO 8601 UTC
  finished_at  TEXT    NOT NULL DEFAULT '',
  status       TEXT    NOT NULL DEFAULT 'running',
  host         TEXT    NOT NULL,
  command      TEXT    NOT NULL,
  clock_policy TEXT    NOT NULL,  -- "observe" or "lock:<MHz>"
  seed         INTEGER NOT NULL,  -- uint64 stored as the int64 with the same bits
  notes        TEXT    NOT NULL,  -- JSON
  gpu_id       INTEGER NOT NULL REFERENCES gpus (id),
  software_id  INTEGER NOT NULL REFERENCES software (id)
);

-- Every candidate tried, whatever its outcome; one row per key, replaced when re-measured.
-- Timings in microseconds; a NULL group means not measured at that stage.
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
  outcome             TEXT    NOT NULL,  -- outcome_name(): ok, compile_failed, ...
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
  cublas_us           REAL,  -- cuBLAS median measured in the same rounds
  error               REAL,  -- normwise error against cuBLAS (version 2)
  screen_sm_clock_min_mhz   REAL,     -- version 3: conditions while measured (NULL: not observed)
  screen_sm_clock_max_mhz   REAL,
  screen_nvml_sm_clock_mhz  REAL,
  screen_power_mw           REAL,     -- mW, mean of the NVML readings
  screen_temperature_c      REAL,     -- C, highest NVML reading
  screen_clock_reasons      INTEGER,  -- OR of NVML clock-event reason bits
  screen_cache              TEXT,     -- 'cold-flush' or 'rotate:<copies>'
  final_sm_clock_min_mhz    REAL,
  final_sm_clock_max_mhz    REAL,
  final_nvml_sm_clock_mhz   REAL,
  final_power_mw            REAL,
  final_temperature_c       REAL,
  final_clock_reasons       INTEGER,
  final_cache               TEXT,
  cublas_sm_clock_min_mhz   REAL,
  cublas_sm_clock_max_mhz   REAL,
  cublas_nvml_sm_clock_mhz  REAL,
  cublas_power_mw           REAL,
  cublas_temperature_c      REAL,
  cublas_clock_reasons      INTEGER,
  cublas_cache              TEXT,
  UNIQUE (problem_id, gpu_id, software_id, family, config, template_hash)
);
CREATE INDEX candidates_run ON candidates (run_id);

-- The best configuration per problem per GPU model (name, arch, SM count), for the dispatcher.
-- family 'cublas' means nothing beat cuBLAS beyond the measurement spread.
CREATE TABLE winners (
  id              INTEGER PRIMARY KEY,
  problem_id      INTEGER NOT NULL REFERENCES problems (id),
  gpu_name        TEXT    NOT NULL,
  gpu_arch        TEXT    NOT NULL,
  gpu_sm_count    INTEGER NOT NULL,
  gpu_id          INTEGER NOT NULL REFERENCES gpus (id),  -- the unit it was tuned on
  software_id     INTEGER NOT NULL REFERENCES software (id),
  family          TEXT    NOT NULL,
  config          TEXT    NOT NULL,
  template_hash   TEXT    NOT NULL,
  compile_options TEXT    NOT NULL,
  time_us         REAL    NOT NULL,
  cublas_us       REAL    NOT NULL,
  tie_band        REAL    NOT NULL,  -- relative spread of the paired ratios
  candidate_id    INTEGER REFERENCES candidates (id) ON DELETE SET NULL,
  updated_at      TEXT    NOT NULL,
  cubin           BLOB,                       -- version 2; NULL: JIT-compile
  cubin_arch      TEXT    NOT NULL DEFAULT '',  -- version 2
  UNIQUE (problem_id, gpu_name, gpu_arch, gpu_sm_count)
);
CREATE INDEX winners_model ON winners (gpu_arch, gpu_name, gpu_sm_count);
