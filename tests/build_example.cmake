# Installs the build into a scratch prefix and moves it elsewhere (as conda, spack or a container
# build do), then uses the moved copy: sgemm-tune finds its installed configs (tune --compile-only
# from a folder without configs/) and runs query; the dispatcher opens the installed database
# (sgemmCreate with no path: a corrupted copy must then be reported); and
# tools/examples/cublas_switch configures and builds against it the way an outside project would.
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc WORKING_DIRECTORY "${WORK_DIR}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
file(MAKE_DIRECTORY "${WORK_DIR}")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
file(RENAME "${WORK_DIR}/prefix" "${WORK_DIR}/moved")
set(moved "${WORK_DIR}/moved")
set(ENV{SGEMM_CACHE_DIR} "${WORK_DIR}/cache")
unset(ENV{SGEMM_TUNER_DB})

file(WRITE "${WORK_DIR}/one.csv" "m,n,k\n300,200,100\n")
run("${moved}/bin/sgemm-tune" --quiet tune --compile-only --arch sm_90 --shapes one.csv
    --max-candidates 2 --db "${WORK_DIR}/compile.db")
run("${moved}/bin/sgemm-tune" --quiet query 4096 16 4096 --arch sm_90
    --db "${moved}/share/sgemm_tune/tuning.db")

# sgemmCreate(&h, NULL) needs no GPU: it reads the installed database, or reports it unreadable.
set(create "import ctypes, sys; h = ctypes.c_void_p(); \
sys.exit(ctypes.CDLL(sys.argv[1]).sgemmCreate(ctypes.byref(h), None))")
set(dispatch "${moved}/lib/libsgemm_dispatch.so")
run("${PYTHON}" -c "${create}" "${dispatch}")
file(WRITE "${moved}/share/sgemm_tune/tuning.db" "not a database")
execute_process(COMMAND "${PYTHON}" -c "${create}" "${dispatch}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 3)  # SGEMM_STATUS_DATABASE_ERROR: the moved database was the one opened
  message(FATAL_ERROR "sgemmCreate on a corrupted installed database returned ${rc}, not 3")
endif()

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tools/examples/cublas_switch" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${moved}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
