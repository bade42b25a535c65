/*===- FakeCUDA.c - a stand-in libcuda.so.1 for testing without a GPU ------===
 *
 * Implements the CUDA driver functions libQSCUDARuntime resolves, on host
 * memory: allocations are malloc, copies memcpy, modules and functions are
 * names, and a launch runs nothing but is logged to stderr
 * ("fake-cuda: launch NAME grid G block B smem S"). With it on
 * LD_LIBRARY_PATH the whole host side of --device=cuda runs on a machine
 * without a GPU: qs-nvptx-pipeline, the JIT'd host code against the mgpu*
 * functions, module loading, argument passing and copies. Kernel results
 * are whatever the output buffers held (not checked).
 *
 * FAKE_CUDA_CC=major.minor sets the compute capability (default 9.0).
 * FAKE_CUDA_HANG=TEXT: a launch whose log text ("NAME grid G block B smem
 * S") contains TEXT never returns (a kernel that hangs).
 * FAKE_CUDA_NO_PTX (set): loading PTX text fails (CUDA_ERROR_INVALID_PTX,
 * 218), as on a driver that cannot compile it.
 * FAKE_CUDA_LOG_ARGUMENT (set): each launch's line ends with its first
 * argument's value (" first argument 0x..."; a buffer's address).
 * FAKE_CUDA_FAIL=TEXT: such a launch fails with CUDA_ERROR_ILLEGAL_ADDRESS
 * (700), and so does every later call that a lost context fails: the error
 * is sticky, as on a GPU.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static int major = 9, minor = 0;
/* CUDA_ERROR_ILLEGAL_ADDRESS once a FAKE_CUDA_FAIL launch ran. */
static CUresult sticky = 0;

CUresult cuInit(unsigned flags) {
  (void)flags;
  const char *cc = getenv("FAKE_CUDA_CC");
  if (cc)
    sscanf(cc, "%d.%d", &major, &minor);
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
CUresult cuDeviceGetCount(int *count) { *count = 1; return 0; }
CUresult cuDeviceGetName(char *name, int len, int device) {
  (void)device;
  snprintf(name, len, "Fake CUDA device");
  return 0;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  /* Compute capability (75, 76: FAKE_CUDA_CC), multiprocessors (16:
     FAKE_CUDA_SMS, default 132 as an H100/H200 SXM). */
  const char *sms = getenv("FAKE_CUDA_SMS");
  *value = attribute == 75   ? major
           : attribute == 76 ? minor
           : attribute == 16 ? (sms ? atoi(sms) : 132)
                             : 0;
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = (void *)0x1;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) { (void)context; return 0; }
CUresult cuCtxSynchronize(void) { return sticky; }
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 700 ? "an illegal memory access was encountered"
                       : "fake CUDA error";
  return 0;
}

static CUresult loadModule(void **module, const void *image) {
  const unsigned char *bytes = image;
  const char *kind = bytes[0] == 0x7f && bytes[1] == 'E' ? "cubin"
                     : bytes[0] == 0x50 && bytes[1] == 0xed ? "fatbin"
                                                            : "ptx";
  fprintf(stderr, "fake-cuda: load %s\n", kind);
  if (kind[0] == 'p' && getenv("FAKE_CUDA_NO_PTX"))
    return 218; /* CUDA_ERROR_INVALID_PTX */
  *module = (void *)0x2;
  return 0;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  return loadModule(module, image);
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  (void)n; (void)options; (void)values;
  return loadModule(module, image);
}
CUresult cuModuleUnload(void *module) { (void)module; return 0; }
/* Functions are their names, kept in a fixed table (no allocation to leak:
   the sanitizer suite runs these tests too). */
static char functionNames[256][128];
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  for (int i = 0; i < 256; ++i) {
    if (!functionNames[i][0])
      snprintf(functionNames[i], sizeof(functionNames[i]), "%s", name);
    if (!strcmp(functionNames[i], name)) {
      *function = functionNames[i];
      return 0;
    }
  }
  return 2;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  (void)function; (void)attribute; (void)value;
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)gy; (void)gz; (void)by; (void)bz; (void)stream; (void)extra;
  /* Every kernel takes pointers (bare-pointer convention); the first one
     must be an allocation of this library or a host buffer, never null. */
  void *first = params ? *(void **)params[0] : NULL;
  char text[256];
  snprintf(text, sizeof(text), "%s grid %u block %u smem %u",
           (const char *)function, gx, bx, smem);
  if (getenv("FAKE_CUDA_LOG_ARGUMENT"))
    fprintf(stderr, "fake-cuda: launch %s%s first argument %p\n", text,
            first ? "" : " NULL-ARGUMENT", first);
  else
    fprintf(stderr, "fake-cuda: launch %s%s\n", text,
            first ? "" : " NULL-ARGUMENT");
  if (sticky)
    return sticky;
  const char *hang = getenv("FAKE_CUDA_HANG");
  if (hang && *hang && strstr(text, hang))
    for (;;)
      pause();
  const char *fail = getenv("FAKE_CUDA_FAIL");
  if (fail && *fail && strstr(text, fail))
    sticky = 700;
  return sticky;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = (void *)0x3;
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) { (void)stream; return 0; }
CUresult cuStreamSynchronize(void *stream) { (void)stream; return sticky; }
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  (void)stream; (void)event; (void)flags;
  return 0;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = (void *)0x4;
  return 0;
}
CUresult cuEventDestroy_v2(void *event) { (void)event; return 0; }
CUresult cuEventRecord(void *event, void *stream) {
  (void)event; (void)stream;
  return 0;
}
CUresult cuEventSynchronize(void *event) { (void)event; return sticky; }
CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  (void)start; (void)end;
  *ms = 1.0f;
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  *p = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  return *p ? 0 : 2;
}
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t bytes, unsigned flags) {
  (void)flags;
  return cuMemAlloc_v2(p, bytes);
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return sticky;
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       void *stream) {
  (void)stream;
  return cuMemcpy(dst, src, bytes);
}
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char value, size_t n) {
  memset((void *)(uintptr_t)p, value, n);
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr p, unsigned short value, size_t n,
                          void *stream) {
  (void)stream;
  for (size_t i = 0; i < n; ++i)
    ((unsigned short *)(uintptr_t)p)[i] = value;
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned value, size_t n,
                          void *stream) {
  (void)stream;
  for (size_t i = 0; i < n; ++i)
    ((unsigned *)(uintptr_t)p)[i] = value;
  return 0;
}

/* The explicit-direction copies scripts/device-run.py uses. */
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  if (sticky)
    return sticky;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  if (sticky)
    return sticky;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  if (sticky)
    return sticky;
  return cuMemcpy(dst, src, bytes);
}

/* TMA descriptors: checks the rules the real driver enforces for the GEMM
   kernels' 2-D UINT8 maps (16-byte aligned address and row stride, boxes of
   at most 256 rows and, with the 128-byte swizzle, 128 bytes), writes the
   fields into the 128-byte map, and logs them. */
CUresult cuTensorMapEncodeTiled(void *map, int type, unsigned rank,
                                void *global, const unsigned long long *dims,
                                const unsigned long long *strides,
                                const unsigned *box,
                                const unsigned *elementStrides,
                                int interleave, int swizzle, int l2, int oob) {
  (void)elementStrides; (void)interleave; (void)l2; (void)oob;
  if (((uintptr_t)map % 64) || ((uintptr_t)global % 16) || type != 0 ||
      rank != 2 || strides[0] % 16 || box[0] == 0 || box[1] == 0 ||
      box[1] > 256 || (swizzle == 3 && box[0] > 128))
    return 1;
  unsigned long long fields[6] = {(uintptr_t)global, dims[0], dims[1],
                                  strides[0], box[0], box[1]};
  memcpy(map, fields, sizeof(fields));
  fprintf(stderr, "fake-cuda: tensormap rows %llu cols %llu box %ux%u swizzle %d\n",
          dims[1], dims[0], box[1], box[0], swizzle);
  return 0;
}
