#!/usr/bin/env python3
"""Shared-memory bank model of qs_gemm_split_k_reduce_blocks' staged tile
(lib/Conversion/QSToGPU/SplitKReduction.cpp, emitBlockReduction): for each
access pattern of the kernel, the shared-memory wavefronts one warp needs,
with the tile row-major and with the kernel's XOR swizzle (chunk k of row r
at chunk k ^ ((r + r / 16) % 8); a chunk is 16 bytes). The patterns and
widths are the ones in the kernel's PTX (test/NVPTX/gemm-block-output-
split-k.mlir): step 1's 8-byte (bf16) / 16-byte (f32) stores of 4 values
of a row, step 2's 16-byte chunk loads of a row block (a thread per row
block, consecutive threads on consecutive rows) and single-value loads of
a column, step 3's 16-row pieces of 4 columns (FP8 column blocks,
transposed). Bank rules (NVIDIA's): 32 banks of 4 bytes; 16-byte accesses
are served a quarter warp at a time, 8-byte ones a half warp at a time;
the wavefronts of a set are its largest number of distinct words in one
bank. Prints one row per configuration: a warp's wavefronts for step 1's
store, step 2's row-block loads (all of a row block) and column loads
(all rows of a column), step 3's transposed loads (all 16 rows); the
least possible is the bytes the warp moves / 128.

  python3 scripts/bank-model.py
"""


def wavefronts(addresses, width):
    per = {16: 8, 8: 16}.get(width, 32)
    total = 0
    for first in range(0, 32, per):
        banks = {}
        for address in addresses[first:first + per]:
            for w in range(max(1, width // 4)):
                word = address // 4 + w
                banks.setdefault(word % 32, set()).add(word)
        total += max(len(words) for words in banks.values())
    return total


def layout(swizzled, size):
    chunk = 16 // size

    def at(r, c):
        k = c // chunk
        if swizzled:
            k ^= (r + r // 16) % 8
        return (r * 128 + k * chunk + c % chunk) * size
    return at


CONFIGS = [  # name, nominal bytes, tile rows, row block, transposed columns
    ("MXFP8, bf16", 2, 32, 32, False),
    ("FP8 1x128, bf16", 2, 32, 128, False),
    ("FP8 1x128 + 128x1, bf16", 2, 128, 128, True),
    ("MXFP8, f32", 4, 32, 32, False),
    ("FP8 1x128, f32", 4, 32, 128, False),
]


def main():
    print(f"{'format, nominal':26s} {'layout':10s} {'step 1':>7s} "
          f"{'2 rows':>7s} {'2 cols':>7s} {'3 T':>5s}")
    for name, size, rows, block, transposed in CONFIGS:
        chunk = 16 // size
        for swizzled in (False, True):
            at = layout(swizzled, size)
            step1 = wavefronts([at(5, 4 * l) for l in range(32)], 4 * size)
            step2 = 0
            for k in range(block // chunk):
                addresses = []
                for u in range(32):
                    j, r = (u // rows, u % rows) if swizzled else \
                        (u % (128 // block), u // (128 // block))
                    addresses.append(at(r, j * block + k * chunk))
                step2 += wavefronts(addresses, 16)
            cols = sum(wavefronts([at(r, c) for c in range(32)], size)
                       for r in range(rows))
            step3 = sum(wavefronts([at((u % 8) * 16 + k, u // 8)
                                    for u in range(32)], size)
                        for k in range(16)) if transposed else 0
            print(f"{name:26s} {'swizzled' if swizzled else 'row-major':10s} "
                  f"{step1:7d} {step2:7d} {cols:7d} {step3:5d}")


if __name__ == "__main__":
    main()
