-- Version 1 -> 2: winners keep their compiled cubin (so the dispatcher needs no JIT on first
-- call), candidates keep the normwise error against cuBLAS, and winners get a lookup index.

ALTER TABLE candidates ADD COLUMN error REAL;

ALTER TABLE winners ADD COLUMN cubin BLOB;
ALTER TABLE winners ADD COLUMN cubin_arch TEXT NOT NULL DEFAULT '';

CREATE INDEX winners_model ON winners (gpu_arch, gpu_name, gpu_sm_count);
