// The exported C functions: argument checks, then one try/catch per function translating
// sgt::Error kinds into sgemmStatus_t. Nothing here aborts, exits or prints.
#include <cublas_v2.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/install_paths.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "dispatch/context.hpp"
#include "sgemm_dispatch.h"

namespace {

sgemmStatus_t status_of(sgt::ErrorKind kind) {
  switch (kind) {
    case sgt::ErrorKind::invalid_value:
      return SGEMM_STATUS_INVALID_VALUE;
    case sgt::ErrorKind::not_initialized:
      return SGEMM_STATUS_NOT_INITIALIZED;
    case sgt::ErrorKind::database:
      return SGEMM_STATUS_DATABASE_ERROR;
    case sgt::ErrorKind::cuda:
      return SGEMM_STATUS_CUDA_ERROR;
    case sgt::ErrorKind::compile:
      return SGEMM_STATUS_COMPILE_ERROR;
    case sgt::ErrorKind::cublas:
      return SGEMM_STATUS_CUBLAS_ERROR;
    case sgt::ErrorKind::not_supported:
      return SGEMM_STATUS_NOT_SUPPORTED;
    case sgt::ErrorKind::internal:
      return SGEMM_STATUS_INTERNAL_ERROR;
  }
  return SGEMM_STATUS_INTERNAL_ERROR;
}

template <typename F>
sgemmStatus_t guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const sgt::Error& e) {
    return status_of(e.kind());
  } catch (const std::bad_alloc&) {
    return SGEMM_STATUS_INTERNAL_ERROR;
  } catch (...) {
    return SGEMM_STATUS_INTERNAL_ERROR;
  }
}

// As in cuBLAS, the conjugate transpose of real data is its transpose.
sgt::Op op_of(sgemmOperation_t op) { return op == SGEMM_OP_N ? sgt::Op::N : sgt::Op::T; }

bool valid_op(sgemmOperation_t op) {
  return op == SGEMM_OP_N || op == SGEMM_OP_T || op == SGEMM_OP_C;
}

// cuBLAS's own argument rules: sizes >= 0, leading dimensions >= max(1, rows).
bool valid_problem(sgemmOperation_t ta, sgemmOperation_t tb, int m, int n, int k, int lda, int ldb,
                   int ldc) {
  if (!valid_op(ta) || !valid_op(tb) || m < 0 || n < 0 || k < 0) return false;
  const int rows_a = ta == SGEMM_OP_N ? m : k;
  const int rows_b = tb == SGEMM_OP_N ? k : n;
  return lda >= std::max(1, rows_a) && ldb >= std::max(1, rows_b) && ldc >= std::max(1, m);
}

sgt::ProblemKey key_of(sgemmOperation_t ta, sgemmOperation_t tb, int m, int n, int k, int lda,
                       int ldb, int ldc, int align) {
  sgt::ProblemKey key;
  key.transa = op_of(ta);
  key.transb = op_of(tb);
  key.m = m;
  key.n = n;
  key.k = k;
  key.lda = lda;
  key.ldb = ldb;
  key.ldc = ldc;
  key.align = align;
  return key;
}

// The database a handle reads: the path given, else $SGEMM_TUNER_DB, else the installed one.
// Empty when none was asked for and none is installed: the handle then serves cuBLAS alone.
std::string database_path(const char* given) {
  if (given) return given;
  if (const char* env = std::getenv("SGEMM_TUNER_DB"); env && *env) return env;
  // The installed database, found from where this library is (the install may have moved).
  const std::filesystem::path installed = sgt::beside_this_library(SGEMM_DEFAULT_DB);
  std::error_code ec;
  return std::filesystem::exists(installed, ec) ? installed.string() : "";
}

// A route being tuned on use: its progress, or what it decided and on what evidence.
void describe_trial(const sgt::OnUseTrial& trial, nlohmann::json& j) {
  j["reason"] = trial.describe();
  const std::optional<sgt::OnUseDecision> d = trial.decision();
  const sgt::Contender& c = trial.contenders()[d ? static_cast<std::size_t>(d->winner) : 0];
  j["family"] = d ? c.family : sgt::kCublasFamily;
  j["config"] = d ? c.config : "";
  j["contenders"] = trial.contenders().size();
  if (d) {
    j["cublas_us"] = d->cublas_us;
    j["expected_us"] = d->time_us;
    j["speedup"] = sgt::measured_speedup(d->time_us, d->cublas_us);
    if (c.entry) j["tuned_problem"] = c.entry->record.problem.to_string();
  }
}

// Who runs a call the handle has no route of its own for: the handle (through its cuBLAS), or
// the caller (an interposer, which calls the application's cuBLAS).
enum class Fallback { handle, caller };

sgemmStatus_t sgemm_on(sgemmHandle_t handle, cudaStream_t stream, sgemmOperation_t transa,
                       sgemmOperation_t transb, int m, int n, int k, const float* alpha,
                       const float* A, int lda, const float* B, int ldb, const float* beta,
                       float* C, int ldc, Fallback fallback = Fallback::handle) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  if (!valid_problem(transa, transb, m, n, k, lda, ldb, ldc) || !alpha || !beta)
    return SGEMM_STATUS_INVALID_VALUE;
  const bool own_only = fallback == Fallback::caller;
  if (m == 0 || n == 0) return own_only ? SGEMM_STATUS_NOT_SUPPORTED : SGEMM_STATUS_SUCCESS;
  if (!C || (k > 0 && *alpha != 0.0f && (!A || !B))) return SGEMM_STATUS_INVALID_VALUE;
  if (own_only && (k == 0 || *alpha == 0.0f)) return SGEMM_STATUS_NOT_SUPPORTED;
  return guarded([&] {
    // Warm path: the current device, a lock-free table probe, then one or two launches (with the
    // stream's lane when the route needs scratch or cuBLAS).
    sgt::DeviceState& dev = handle->device_state();
    const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
    const int align = sgt::alignment_class(lda, ldb, ldc, address(A), address(B), address(C));
    const sgt::GemmCall call{
        key_of(transa, transb, m, n, k, lda, ldb, ldc, align), *alpha, *beta, A, B, C};
    // k == 0 and alpha == 0 leave only the beta scaling of C: exactly cuBLAS's business.
    const sgt::Route* route = nullptr;
    if (k != 0 && *alpha != 0.0f) {
      route = &dev.route(call.key);
      if (route->miss && handle->miss_log_on.load(std::memory_order_relaxed))
        route->calls.fetch_add(1, std::memory_order_relaxed);
      if (own_only && route->serves_cublas()) return SGEMM_STATUS_NOT_SUPPORTED;
    }
    dev.run(route, stream, call);
    return SGEMM_STATUS_SUCCESS;
  });
}

}  // namespace

extern "C" {

sgemmStatus_t sgemmCreate(sgemmHandle_t* handle, const char* db_path) {
  if (!handle) return SGEMM_STATUS_INVALID_VALUE;
  *handle = nullptr;
  return guarded([&] {
    const std::string path = database_path(db_path);
    sgt::OnUseSettings on_use = sgt::on_use_settings_from_env();
    std::vector<sgt::WinnerRecord> winners;
    // Tuning on use reads back what earlier processes tuned; the database given (or installed)
    // comes after it, so its winners are the ones kept where both hold a problem.
    std::error_code ec;
    if (on_use.enabled && !on_use.database.empty() &&
        std::filesystem::exists(on_use.database, ec)) {
      sgt::Database db = sgt::Database::open(on_use.database, sgt::OpenMode::read_only);
      winners = sgt::TuningStore(db).winners();
    }
    if (!path.empty()) {
      sgt::Database db = sgt::Database::open(path, sgt::OpenMode::read_only);
      std::vector<sgt::WinnerRecord> tuned = sgt::TuningStore(db).winners();
      winners.insert(winners.end(), std::make_move_iterator(tuned.begin()),
                     std::make_move_iterator(tuned.end()));
    }
    auto context = std::make_unique<sgemmContext>(std::move(winners), sgt::nearest_rules_from_env(),
                                                  std::move(on_use), path);
    if (const char* log = std::getenv("SGEMM_DISPATCH_MISS_LOG"); log && *log) {
      context->miss_log_path = log;
      context->miss_log_on.store(true);
    }
    *handle = context.release();
    return SGEMM_STATUS_SUCCESS;
  });
}

sgemmStatus_t sgemmDestroy(sgemmHandle_t handle) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  return guarded([&] {
    std::unique_ptr<sgemmContext> owned(handle);
    // The miss log is written first; the handle is released whether or not that works.
    const bool written = owned->write_miss_log();
    int current = 0;
    const bool restore = cudaGetDevice(&current) == cudaSuccess;
    for (auto& [ordinal, state] : owned->devices) {
      // Modules, cuBLAS handle and workspace are released with their device current.
      if (cudaSetDevice(ordinal) == cudaSuccess) state.reset();
    }
    if (restore) cudaSetDevice(current);
    owned.reset();
    return written ? SGEMM_STATUS_SUCCESS : SGEMM_STATUS_INVALID_VALUE;
  });
}

sgemmStatus_t sgemmSetMissLog(sgemmHandle_t handle, const char* path) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  return guarded([&] {
    std::lock_guard lock(handle->miss_log_mutex);
    handle->miss_log_path = path ? path : "";
    handle->miss_log_on.store(!handle->miss_log_path.empty(), std::memory_order_relaxed);
    return SGEMM_STATUS_SUCCESS;
  });
}

sgemmStatus_t sgemmSetStream(sgemmHandle_t handle, cudaStream_t stream) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  handle->stream.store(stream, std::memory_order_relaxed);
  return SGEMM_STATUS_SUCCESS;
}

sgemmStatus_t sgemmSgemm(sgemmHandle_t handle, sgemmOperation_t transa, sgemmOperation_t transb,
                         int m, int n, int k, const float* alpha, const float* A, int lda,
                         const float* B, int ldb, const float* beta, float* C, int ldc) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  return sgemm_on(handle, handle->stream.load(std::memory_order_relaxed), transa, transb, m, n, k,
                  alpha, A, lda, B, ldb, beta, C, ldc);
}

sgemmStatus_t sgemmSgemmOnStream(sgemmHandle_t handle, cudaStream_t stream, sgemmOperation_t transa,
                                 sgemmOperation_t transb, int m, int n, int k, const float* alpha,
                                 const float* A, int lda, const float* B, int ldb,
                                 const float* beta, float* C, int ldc) {
  return sgemm_on(handle, stream, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

sgemmStatus_t sgemmSgemmTunedOnStream(sgemmHandle_t handle, cudaStream_t stream,
                                      sgemmOperation_t transa, sgemmOperation_t transb, int m,
                                      int n, int k, const float* alpha, const float* A, int lda,
                                      const float* B, int ldb, const float* beta, float* C,
                                      int ldc) {
  return sgemm_on(handle, stream, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                  Fallback::caller);
}

sgemmStatus_t sgemmWriteMissLog(sgemmHandle_t handle) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  return guarded(
      [&] { return handle->write_miss_log() ? SGEMM_STATUS_SUCCESS : SGEMM_STATUS_INVALID_VALUE; });
}

sgemmStatus_t sgemmDescribe(sgemmHandle_t handle, sgemmOperation_t transa, sgemmOperation_t transb,
                            int m, int n, int k, int lda, int ldb, int ldc, char* buf,
                            size_t buflen) {
  if (!handle) return SGEMM_STATUS_NOT_INITIALIZED;
  if (!valid_problem(transa, transb, m, n, k, lda, ldb, ldc) || !buf || buflen == 0)
    return SGEMM_STATUS_INVALID_VALUE;
  return guarded([&] {
    sgt::DeviceState& dev = handle->device_state();
    const int align = sgt::alignment_class(lda, ldb, ldc, 0, 0, 0);
    const sgt::ProblemKey key = key_of(transa, transb, m, n, k, lda, ldb, ldc, align);
    nlohmann::json j;
    j["arch"] = dev.arch();
    j["problem"] = key.to_string();
    j["database"] = handle->database.empty() ? nlohmann::json() : nlohmann::json(handle->database);
    if (m == 0 || n == 0 || k == 0) {
      j["source"] = "cublas";
      j["family"] = sgt::kCublasFamily;
      j["config"] = "";
      j["reason"] = "empty problem: cuBLAS semantics";
    } else {
      const sgt::Route& route = dev.route(key);
      j["source"] = sgt::source_name(route.source);
      j["reason"] = handle->database.empty() && !route.trial
                        ? "no tuning database is installed: cuBLAS serves every call"
                        : route.why;
      if (route.trial) {
        describe_trial(*route.trial, j);
      } else if (route.source == sgt::Route::Source::cublas) {
        j["family"] = sgt::kCublasFamily;
        j["config"] = "";
      } else {
        const sgt::WinnerRecord& w = route.entry->record;
        j["family"] = w.family;
        j["config"] = w.config;
        j["cublas_us"] = w.cublas_us;
        j["speedup"] = sgt::measured_speedup(w.time_us, w.cublas_us);
        if (route.source == sgt::Route::Source::exact) {
          j["expected_us"] = w.time_us;
        } else {
          j["tuned_problem"] = w.problem.to_string();
          j["tuned_us"] = w.time_us;
          j["distance"] = route.distance;
        }
        if (!route.lt_plan) j["split_k"] = route.geometry.k_splits;  // cuBLASLt's is in its config
      }
      if (route.source == sgt::Route::Source::cublas && route.entry &&
          route.entry->record.problem != key) {
        j["tuned_problem"] = route.entry->record.problem.to_string();
        j["distance"] = route.distance;
      }
    }
    const std::string json = j.dump();
    if (json.size() + 1 > buflen) return SGEMM_STATUS_INVALID_VALUE;
    std::memcpy(buf, json.c_str(), json.size() + 1);
    return SGEMM_STATUS_SUCCESS;
  });
}

const char* sgemmGetStatusString(sgemmStatus_t status) {
  switch (status) {
    case SGEMM_STATUS_SUCCESS:
      return "SGEMM_STATUS_SUCCESS";
    case SGEMM_STATUS_INVALID_VALUE:
      return "SGEMM_STATUS_INVALID_VALUE";
    case SGEMM_STATUS_NOT_INITIALIZED:
      return "SGEMM_STATUS_NOT_INITIALIZED";
    case SGEMM_STATUS_DATABASE_ERROR:
      return "SGEMM_STATUS_DATABASE_ERROR";
    case SGEMM_STATUS_CUDA_ERROR:
      return "SGEMM_STATUS_CUDA_ERROR";
    case SGEMM_STATUS_COMPILE_ERROR:
      return "SGEMM_STATUS_COMPILE_ERROR";
    case SGEMM_STATUS_CUBLAS_ERROR:
      return "SGEMM_STATUS_CUBLAS_ERROR";
    case SGEMM_STATUS_NOT_SUPPORTED:
      return "SGEMM_STATUS_NOT_SUPPORTED";
    case SGEMM_STATUS_INTERNAL_ERROR:
      return "SGEMM_STATUS_INTERNAL_ERROR";
  }
  return "unknown sgemmStatus_t";
}

}  // extern "C"
