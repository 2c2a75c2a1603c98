// Measurement and verification settings from YAML (configs/measure.yaml): every key is a field of
// MeasureSettings or of VerifySettings; unknown keys are errors with file:line.
#pragma once

#include <string>

#include "measure/measurement.hpp"

namespace sgt {

struct VerifySettings {
  double tolerance_factor = 4.0;  // normwise error must stay under factor x 2^-24
};

struct TuningSettings {
  MeasureSettings measure;
  VerifySettings verify;
};

TuningSettings load_tuning_settings(const std::string& path);
TuningSettings parse_tuning_settings(const std::string& text, const std::string& file_name);

}  // namespace sgt
