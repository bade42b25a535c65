"""Checks bench/gemm/torch_baseline.py's block_scales() against PyTorch's
block-scaling dispatch rule (ATen/native/cuda/ScaledBlas.cpp, transcribed
here independently): torch._scaled_mm(mat1, mat2, scale_a, scale_b) with
mat1 = a [M, K] and mat2 = b.t() accepts scale_a for mat1 and scale_b.t()
for mat2.t() = b when
  1x128:   shape (rows, ceil(K/128)), strides (1, rows)
  128x128: shape (ceil(rows/128), ceil(K/128)), strides (ceil(K/128), 1)
(a stride is not checked where the size is 1). Runs without PyTorch: a
stand-in `torch` whose tensors are shapes with element strides.
  python3 torch_block_scales.py BENCH_GEMM_DIR"""
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/..")
from torch_baseline import block_scales  # noqa: E402


class Tensor:
    def __init__(self, shape, strides):
        self.shape, self.strides = shape, strides

    def t(self):
        return Tensor(self.shape[::-1], self.strides[::-1])

    def size(self, d):
        return self.shape[d]

    def stride(self, d):
        return self.strides[d]


class FakeTorch:
    @staticmethod
    def ones(rows, cols, device=None):
        return Tensor((rows, cols), (cols, 1))  # contiguous, as torch.ones


def fits(scale, size0, stride0, size1, stride1):
    return all(scale.size(d) == size and (size <= 1 or scale.stride(d) == stride)
               for d, size, stride in ((0, size0, stride0), (1, size1, stride1)))


def rule(kind, scale, rows, k):
    kb = -(-k // 128)
    if kind == "1x128":
        return fits(scale, rows, 1, kb, rows)
    return fits(scale, -(-rows // 128), kb, kb, 1)


for m, n, k in ((8192, 8192, 8192), (4096, 4096, 4096), (8192, 14336, 4096), (256, 384, 128)):
    for kind, sa, sb in block_scales(FakeTorch, m, n, k):
        kind_a, kind_b = kind.split()[1], kind.split()[3]
        ok = rule(kind_a, sa, m, k) and rule(kind_b, sb.t(), n, k)
        print(f"{m}x{n}x{k} {kind}: {'accepted' if ok else 'REJECTED'}")
