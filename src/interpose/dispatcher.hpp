// libsgemm_dispatch, opened on the first call that could be served (after the application has
// loaded its cuBLAS, so the dispatcher's own cuBLAS dependency resolves to the application's
// copy), and one dispatcher handle for the whole process.
#pragma once

#include <sgemm_dispatch.h>

#include <string>

namespace sgt::interpose {

struct Dispatcher {
  decltype(&sgemmSgemmTunedOnStream) sgemm_tuned = nullptr;
  decltype(&sgemmWriteMissLog) write_miss_log = nullptr;
  sgemmHandle_t handle = nullptr;
  std::string error;  // why there is no handle (then every call passes through)
};

// Opened once: libsgemm_dispatch.so.N beside this library, else on the loader's search path;
// the handle reads $SGEMM_TUNER_DB or the installed database, as sgemmCreate(&h, NULL) does.
const Dispatcher& dispatcher();
// The dispatcher if dispatcher() has opened it already, else null: for the exit handler, which
// must not open anything.
const Dispatcher* dispatcher_if_open();

}  // namespace sgt::interpose
