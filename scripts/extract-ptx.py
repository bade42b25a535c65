#!/usr/bin/env python3
"""Prints the PTX text held by the gpu.binary ops of an MLIR file
(`qs-opt --qs-nvptx-pipeline="format=isa"` output): one block per binary
object, or writes each to DIR/<module>.ptx with --out-dir DIR. With --raw,
writes the objects' bytes as they are (e.g. the LLVM bitcode of
`format=llvm`, for llvm-dis)."""

import argparse
import re
import sys


def unescape(text):
    # MLIR prints non-printable string bytes as \XX (hex) and \\ / \".
    return re.sub(r'\\([0-9A-Fa-f]{2}|\\|")',
                  lambda m: m.group(1) if m.group(1) in ('\\', '"') else chr(int(m.group(1), 16)),
                  text)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("input")
    parser.add_argument("--out-dir")
    parser.add_argument("--raw", action="store_true")
    args = parser.parse_args()
    text = open(args.input).read()
    found = 0
    for binary in re.finditer(r'gpu\.binary @(\w+)[^\n]*', text):
        for obj in re.finditer(r'#gpu\.object<#nvvm\.target<[^>]*>,\s*(?:properties = \{[^}]*\},\s*)?(?:(?:assembly|offload) = )?"((?:[^"\\]|\\.)*)"', binary.group(0)):
            ptx = unescape(obj.group(1))
            found += 1
            if args.out_dir:
                with open(f"{args.out_dir}/{binary.group(1)}.ptx", "w") as f:
                    f.write(ptx)
            elif args.raw:
                sys.stdout.buffer.write(ptx.encode("latin-1"))
            else:
                sys.stdout.write(ptx)
    if not found:
        sys.exit("extract-ptx: no gpu.binary with PTX text in " + args.input)


if __name__ == "__main__":
    main()
