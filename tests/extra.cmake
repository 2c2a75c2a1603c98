# Extra test targets: the fake NVML library the clock-lock unit tests load through
# SGEMM_NVML_LIBRARY (never the real one: tests must not touch a real GPU's clocks).
add_library(sgemm_fake_nvml SHARED "${CMAKE_CURRENT_SOURCE_DIR}/support/fake_nvml.cpp")
target_compile_definitions(sgemm_fake_nvml PRIVATE SGEMM_FAKE_NVML_BUILD)
set_target_properties(sgemm_fake_nvml PROPERTIES CXX_VISIBILITY_PRESET hidden)
# The same without the power and temperature entry points.
add_library(sgemm_fake_nvml_no_sensors SHARED "${CMAKE_CURRENT_SOURCE_DIR}/support/fake_nvml.cpp")
target_compile_definitions(sgemm_fake_nvml_no_sensors PRIVATE SGEMM_FAKE_NVML_BUILD
                           SGEMM_FAKE_NVML_NO_SENSORS)
set_target_properties(sgemm_fake_nvml_no_sensors PROPERTIES CXX_VISIBILITY_PRESET hidden)
if(TARGET unit_tests)
  target_compile_definitions(unit_tests PRIVATE
    "SGEMM_FAKE_NVML_PATH=\"$<TARGET_FILE:sgemm_fake_nvml>\""
    "SGEMM_FAKE_NVML_NO_SENSORS_PATH=\"$<TARGET_FILE:sgemm_fake_nvml_no_sensors>\"")
  add_dependencies(unit_tests sgemm_fake_nvml sgemm_fake_nvml_no_sensors)
endif()
