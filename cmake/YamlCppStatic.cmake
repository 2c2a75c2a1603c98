# yaml-cpp linked statically: the GPU machines ship no libyaml-cpp.so.
find_library(SGEMM_YAML_CPP_STATIC NAMES libyaml-cpp.a REQUIRED)
find_path(SGEMM_YAML_CPP_INCLUDE NAMES yaml-cpp/yaml.h REQUIRED)
add_library(sgemm_yaml_cpp STATIC IMPORTED)
set_target_properties(sgemm_yaml_cpp PROPERTIES
  IMPORTED_LOCATION "${SGEMM_YAML_CPP_STATIC}"
  INTERFACE_INCLUDE_DIRECTORIES "${SGEMM_YAML_CPP_INCLUDE}")
