-- Version 2 -> 3: what was observed while each timing was taken (clock probe range, NVML clock,
-- power and temperature, clock-event reasons, how operands were kept out of L2), for the
-- screening, the final measurement and the cuBLAS reference of the same rounds. NULL: not
-- observed, or measured before version 3.

ALTER TABLE candidates ADD COLUMN screen_sm_clock_min_mhz REAL;
ALTER TABLE candidates ADD COLUMN screen_sm_clock_max_mhz REAL;
ALTER TABLE candidates ADD COLUMN screen_nvml_sm_clock_mhz REAL;
ALTER TABLE candidates ADD COLUMN screen_power_mw REAL;
ALTER TABLE candidates ADD COLUMN screen_temperature_c REAL;
ALTER TABLE candidates ADD COLUMN screen_clock_reasons INTEGER;
ALTER TABLE candidates ADD COLUMN screen_cache TEXT;
ALTER TABLE candidates ADD COLUMN final_sm_clock_min_mhz REAL;
ALTER TABLE candidates ADD COLUMN final_sm_clock_max_mhz REAL;
ALTER TABLE candidates ADD COLUMN final_nvml_sm_clock_mhz REAL;
ALTER TABLE candidates ADD COLUMN final_power_mw REAL;
ALTER TABLE candidates ADD COLUMN final_temperature_c REAL;
ALTER TABLE candidates ADD COLUMN final_clock_reasons INTEGER;
ALTER TABLE candidates ADD COLUMN final_cache TEXT;
ALTER TABLE candidates ADD COLUMN cublas_sm_clock_min_mhz REAL;
ALTER TABLE candidates ADD COLUMN cublas_sm_clock_max_mhz REAL;
ALTER TABLE candidates ADD COLUMN cublas_nvml_sm_clock_mhz REAL;
ALTER TABLE candidates ADD COLUMN cublas_power_mw REAL;
ALTER TABLE candidates ADD COLUMN cublas_temperature_c REAL;
ALTER TABLE candidates ADD COLUMN cublas_clock_reasons INTEGER;
ALTER TABLE candidates ADD COLUMN cublas_cache TEXT;
