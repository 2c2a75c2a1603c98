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

# The cuBLAS interposer (tests/interposer): an application that calls cuBLAS directly and knows
# nothing of sgemm-tune, run by the GPU tests with and without LD_PRELOAD=libsgemm_cublas.so; and
# the same check in unmodified PyTorch and CuPy programs (exit 77, a skip, without them or a GPU).
add_executable(cublas_app "${CMAKE_CURRENT_SOURCE_DIR}/interposer/cublas_app.cpp")
target_link_libraries(cublas_app PRIVATE CUDA::cublas CUDA::cudart Threads::Threads)
if(TARGET gpu_tests)
  target_compile_definitions(gpu_tests PRIVATE
    "SGEMM_CUBLAS_LIBRARY=\"$<TARGET_FILE:sgemm_cublas>\""
    "SGEMM_CUBLAS_APP_PATH=\"$<TARGET_FILE:cublas_app>\"")
  add_dependencies(gpu_tests sgemm_cublas cublas_app)
endif()
if(TARGET unit_tests)
  target_compile_definitions(unit_tests PRIVATE
    "SGEMM_CUBLAS_LIBRARY=\"$<TARGET_FILE:sgemm_cublas>\""
    "SGEMM_CUBLAS_VERSION_NODE=\"libcublas.so.${CUDAToolkit_VERSION_MAJOR}\"")
  add_dependencies(unit_tests sgemm_cublas)
endif()
foreach(framework torch cupy)
  add_test(NAME interposer_in_${framework}
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/interposer/check_frameworks.py"
            --framework ${framework} --interposer "$<TARGET_FILE:sgemm_cublas>"
            --tune-binary "$<TARGET_FILE:sgemm-tune>"
            --dump "${PROJECT_SOURCE_DIR}/tuner_db/nvidia-h200.json"
            --shapes "${PROJECT_SOURCE_DIR}/configs/shapes/public.csv" --samples 5)
  set_tests_properties(interposer_in_${framework} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       TIMEOUT 900)
endforeach()
# Record -> tune -> replay in an unmodified PyTorch program (docs/interposer.md).
add_test(NAME interposer_loop_in_torch
  COMMAND "${Python3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/interposer/check_loop.py"
          --interposer "$<TARGET_FILE:sgemm_cublas>" --tune-binary "$<TARGET_FILE:sgemm-tune>"
          --dump "${PROJECT_SOURCE_DIR}/tuner_db/nvidia-h200.json"
          --shapes "${CMAKE_CURRENT_SOURCE_DIR}/interposer/loop-shapes.csv")
set_tests_properties(interposer_loop_in_torch PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                     TIMEOUT 900)

# sgemm-tune with a deliberately faulty kernel family (tests/faults), for the crash-isolation
# tests: sgemm-tune's own objects plus the family, which registers itself and its template.
sgemm_embed("${CMAKE_CURRENT_BINARY_DIR}/embedded_test_templates.cpp" sgt::testing test_templates
            "${CMAKE_CURRENT_SOURCE_DIR}/faults/test_faults.cu")
add_executable(sgemm-tune-test-families "${CMAKE_CURRENT_SOURCE_DIR}/faults/test_faults_family.cpp"
               "${CMAKE_CURRENT_BINARY_DIR}/embedded_test_templates.cpp")
target_link_libraries(sgemm-tune-test-families PRIVATE sgt_cli)
if(TARGET gpu_tests)
  target_compile_definitions(gpu_tests PRIVATE
    "SGEMM_TUNE_TEST_FAMILIES_BINARY=\"$<TARGET_FILE:sgemm-tune-test-families>\"")
  add_dependencies(gpu_tests sgemm-tune-test-families)
endif()
