#!/usr/bin/env python3
"""Writes the qs-fuzz seed corpus into DIR: every `// -----` chunk of the lit
tests (test/**/*.mlir) and every example as MLIR text (first byte even), and
a few generator seeds (first byte odd, then bytes the generator consumes).
Usage: fuzz-seeds.py SRC_ROOT DIR"""

import glob
import hashlib
import os
import random
import sys


def main():
    root, out = sys.argv[1], sys.argv[2]
    chunks = []
    for path in sorted(glob.glob(os.path.join(root, "test", "**", "*.mlir"), recursive=True)) + \
            sorted(glob.glob(os.path.join(root, "examples", "*.mlir"))):
        text = open(path).read()
        for chunk in text.split("// -----"):
            body = "\n".join(line for line in chunk.splitlines()
                             if not line.lstrip().startswith("// RUN"))
            if body.strip():
                chunks.append(body.encode())
    rng = random.Random(0)
    generated = [bytes([1]) + bytes(rng.randrange(256) for _ in range(n))
                 for n in (16, 64, 128, 256, 512, 1024) for _ in range(4)]
    for data in chunks + generated:
        if data[:1] and data[0] & 1 and data not in generated:
            data = b" " + data        # keep MLIR text in text mode
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"fuzz-seeds: {len(chunks)} MLIR chunks, {len(generated)} generator seeds")


if __name__ == "__main__":
    main()
