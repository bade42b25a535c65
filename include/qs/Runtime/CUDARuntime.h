/*===- CUDARuntime.h - CUDA driver access loaded at run time ------*- C -*-===//
 *
 * libQSCUDARuntime talks to the GPU through the CUDA driver API, which it
 * loads with dlopen("libcuda.so.1") on first use: everything links and runs
 * on machines without a driver, and calls report "no CUDA driver" instead.
 *
 * It exports two interfaces:
 *  - the `mgpu*` functions that MLIR's gpu-to-llvm lowering calls (module
 *    load/unload, launches, streams, device memory), so JIT-compiled host
 *    code of qs-nvptx-pipeline runs against it (qs-run --device=cuda);
 *  - the `qsCuda*` functions below, for runners and benchmarks.
 * Every function returns an error indication and keeps the last error's
 * text (qsCudaLastError); the mgpu* ones, which cannot return errors, only
 * record it, so callers check qsCudaLastError after running host code.
 *
 *===----------------------------------------------------------------------===*/

#ifndef QS_RUNTIME_CUDARUNTIME_H
#define QS_RUNTIME_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the driver, initializes it and makes device 0's primary context
 * current. Returns 0 on success; else the reason is in qsCudaLastError(). */
int qsCudaInit(void);
/* The last error's text ("" if none); qsCudaClearError forgets it. */
const char *qsCudaLastError(void);
void qsCudaClearError(void);
/* Device 0: name and compute capability. Returns 0 on success. */
int qsCudaDeviceInfo(char *name, size_t nameSize, int *major, int *minor);
/* Device 0's streaming multiprocessors. Returns 0 on success. */
int qsCudaDeviceMultiprocessors(int *count);

/* Device memory (device pointers as void *; null on failure). */
void *qsCudaMalloc(size_t bytes);
void qsCudaFree(void *devicePointer);
/* Copies in any direction (unified addressing), synchronously. */
int qsCudaCopy(void *dst, const void *src, size_t bytes);
int qsCudaMemset(void *devicePointer, unsigned char value, size_t bytes);
int qsCudaSynchronize(void);

/* Kernels from a cubin, fatbin or NUL-terminated PTX image. */
void *qsCudaLoadModule(const void *image);
void qsCudaUnloadModule(void *module);
void *qsCudaGetFunction(void *module, const char *name);
/* 1-D launch on the default stream; `params` as in cuLaunchKernel. Raises
 * the function's dynamic shared memory limit when sharedBytes > 48 KiB. */
int qsCudaLaunch(void *function, uint32_t gridX, uint32_t blockX,
                 uint32_t sharedBytes, void **params);

/* Encodes the TMA descriptor (CUtensorMap, 128 bytes) of a row-major
 * [rows, cols] byte matrix at device address `global` into device memory at
 * `map` (64-byte aligned): boxes of [boxRows, boxCols] bytes, swizzleBytes
 * 128 (128-byte swizzle) or 0 (none), zero fill past the edges. The GEMM
 * kernels' host code calls it (pointers as integers). Returns 0 on
 * success. */
int qsCudaEncodeTensorMap2D(int64_t map, int64_t global, int64_t rows,
                            int64_t cols, int64_t boxRows, int64_t boxCols,
                            int64_t swizzleBytes);

/* Timing with events on the default stream. */
void *qsCudaEventCreate(void);
void qsCudaEventDestroy(void *event);
int qsCudaEventRecord(void *event);
/* Milliseconds between two recorded events (waits for `end`); < 0 on error. */
float qsCudaEventElapsedMs(void *start, void *end);
/* Queues a one-thread kernel on the default stream that spins for `ms`
 * milliseconds on %globaltimer (loaded from PTX on first use): work queued
 * behind it meets a busy GPU, so a timed loop's launch gaps on the host do
 * not show as idle GPU time. */
int qsCudaSpin(double ms);

#ifdef __cplusplus
}
#endif

#endif /* QS_RUNTIME_CUDARUNTIME_H */
