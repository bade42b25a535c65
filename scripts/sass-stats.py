#!/usr/bin/env python3
"""SASS statistics of generated kernels: assembles PTX with ptxas, reads the
machine code back with nvdisasm (PyPI `nvidia-cuda-nvdisasm`, in the
project's .venv) and prints, per kernel, its instruction count, how many of
those lie inside loops, and for each --count opcode prefix (e.g.
MEMBAR.ALL.GPU) how many there are and how many inside loops.

An instruction is inside a loop when its basic block lies on a cycle of
the control-flow graph (the spin loops of mbarrier waits count too; ptxas
moves their retry blocks out of line, so address ranges would not do). The tool answers
questions the PTX cannot: what a PTX instruction costs on the chip (a
`.release.cluster` qualifier becomes MEMBAR.ALL.GPU + ERRBAR), how many
instructions an encode path takes per element.

  qs-opt f.mlir --qs-nvptx-pipeline="chip=sm_90a format=isa" \\
    | python3 scripts/extract-ptx.py /dev/stdin > f.ptx
  python3 scripts/sass-stats.py f.ptx --arch sm_90a --count MEMBAR.ALL.GPU

Output, one line per kernel:
  KERNEL instructions N loops L [OPCODE total T loops U]... [cycles ADDR:N...]

--pipes adds, per loop, a model of its issue cost per warp and iteration
on an SM sub-partition of Hopper (sm_90a): one instruction issued per
clock; the integer ALU (logic, shifts, permutes, compares, min/max, integer
adds: 16 lanes, half a warp instruction per clock); IMAD/IMUL on the
heavy FMA half only (16 lanes); FP32 FFMA/FADD/FMUL on either FMA half (32
lanes); MUFU and conversions on the 4-lane XU. Pipe assignments follow
Nsight Compute's pipeline descriptions ("alu ... integer instructions,
excluding IMAD and IMUL"); the table below is an assumption, not a
measurement: a loop printed as `ADDR:alu=A,imad=H,fp32=F,xu=X,bound=B` is
bound by the largest of N (issue), 2A, 2 max(H, (H + F) / 2) and 8X
clocks, a lower bound that ignores latency, memory and dual issue.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_tool(name, given):
    if given:
        return given
    venv = os.path.join(ROOT, ".venv", "lib")
    if os.path.isdir(venv):
        for dirpath, _, files in os.walk(venv):
            if name in files and dirpath.endswith(os.path.join("cu13", "bin")):
                return os.path.join(dirpath, name)
    for root in [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]:
        if root and os.access(os.path.join(root, "bin", name), os.X_OK):
            return os.path.join(root, "bin", name)
    return shutil.which(name)


INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*$")
LABEL = re.compile(r"^(\.L_x_\d+):")
FUNCTION = re.compile(r"^//-+ \.text\.(\S+)")
TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def parse(text):
    """{kernel: [(address, text)]} and {label: address} of nvdisasm -c."""
    kernels, labels, pending = {}, {}, []
    current = None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = m.group(1)
            kernels[current] = []
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSTRUCTION.match(line)
        if m and current is not None:
            address = int(m.group(1), 16)
            for label in pending:
                labels[label] = address
            pending = []
            kernels[current].append((address, m.group(2)))
    return kernels, labels


def opcode(text):
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def loop_addresses(instructions, labels):
    """{address: the cycle's first block's address} of the instructions on a
    cycle of the control-flow graph (basic blocks split at branch targets
    and after branches; a strongly connected component of more than one
    block, or a block branching to itself)."""
    targets = set(labels.values())
    blocks, current = [], []
    for address, text in instructions:
        if address in targets and current:
            blocks.append(current)
            current = []
        current.append((address, text))
        if opcode(text).startswith(("BRA", "EXIT", "RET", "BRX")):
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    start = {b[0][0]: i for i, b in enumerate(blocks)}
    edges = []
    for i, block in enumerate(blocks):
        address, text = block[-1]
        op = opcode(text)
        predicated = text.split()[0].startswith("@")
        succ = set()
        m = TARGET.search(text)
        if op.startswith("BRA") and m and labels.get(m.group(1)) in start:
            succ.add(start[labels[m.group(1)]])
        falls = not (op.startswith(("BRA", "EXIT", "RET", "BRX"))
                     and not predicated)
        if falls and i + 1 < len(blocks):
            succ.add(i + 1)
        edges.append(succ)
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, comp = {}, {}, set(), [], [None] * len(blocks)
    counter = [0]
    for root in range(len(blocks)):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    members.append(w)
                    if w == node:
                        break
                for w in members:
                    comp[w] = (len(members), node)
    looped = {}
    for i, block in enumerate(blocks):
        size, root = comp[i]
        if size > 1 or i in edges[i]:
            for a, _ in block:
                looped[a] = blocks[root][0][0]
    return looped


# Opcode (first dotted word) -> pipe, for --pipes; unlisted: issue only.
PIPES = {
    **{op: "alu" for op in (
        "LOP3", "LOP", "SHF", "SHL", "SHR", "PRMT", "LEA", "IADD3", "IADD",
        "VIADD", "IMNMX", "VIMNMX", "FMNMX", "ISETP", "FSETP", "PLOP3",
        "FSEL", "SEL", "FSET", "ISET", "BMSK", "F2FP", "MOV", "HMNMX2",
        "HSETP2")},
    **{op: "imad" for op in ("IMAD", "IMUL", "IDP", "HADD2", "HMUL2",
                              "HFMA2")},
    **{op: "fp32" for op in ("FFMA", "FADD", "FMUL")},
    **{op: "xu" for op in ("MUFU", "F2F", "F2I", "I2F", "FRND", "POPC",
                            "FLO", "BREV")},
}


def pipe_cost(texts):
    """{pipe: count} and the bound (clocks) of a loop's instructions."""
    count = {"alu": 0, "imad": 0, "fp32": 0, "xu": 0}
    for t in texts:
        pipe = PIPES.get(opcode(t).split(".")[0])
        if pipe:
            count[pipe] += 1
    heavy = max(count["imad"], (count["imad"] + count["fp32"]) / 2)
    count["bound"] = max(len(texts), 2 * count["alu"], 2 * heavy,
                         8 * count["xu"])
    return count


def stats(instructions, labels, prefixes):
    # Padding: NOPs and the `BRA self` after the last EXIT.
    real = [(a, t) for a, t in instructions
            if opcode(t) != "NOP" and not (
                opcode(t) == "BRA" and TARGET.search(t) is None)]
    looped = loop_addresses(real, labels)
    row = {"instructions": len(real),
           "loops": sum(1 for a, _ in real if a in looped)}
    for prefix in prefixes:
        hits = [a for a, t in real if opcode(t).startswith(prefix)]
        row[prefix] = (len(hits), sum(1 for a in hits if a in looped))
    sizes = {}
    for a, _ in real:
        if a in looped:
            sizes[looped[a]] = sizes.get(looped[a], 0) + 1
    row["cycles"] = sizes
    row["pipes"] = {
        head: pipe_cost([t for a, t in real if looped.get(a) == head])
        for head in sizes}

    # Opcode histogram of the loops' instructions (the whole kernel's when it
    # has no loop of 4 or more).
    pool = [t for a, t in real if a in looped and sizes[looped[a]] >= 4]
    pool = pool or [t for _, t in real]
    histogram = {}
    for t in pool:
        histogram[opcode(t)] = histogram.get(opcode(t), 0) + 1
    row["histogram"] = sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0]))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ptx", help="PTX file (or a .cubin)")
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--ptxas")
    parser.add_argument("--nvdisasm")
    parser.add_argument("--count", action="append", default=[],
                        help="opcode prefix to count (repeatable)")
    parser.add_argument("--cycles", action="store_true",
                        help="also list each cycle's (loop's) instruction "
                             "count, at its first address; mbarrier spin "
                             "loops (under 4 instructions) left out")
    parser.add_argument("--pipes", action="store_true",
                        help="also model each loop's issue cost by pipe "
                             "(see above)")
    parser.add_argument("--histogram", type=int, default=0, metavar="N",
                        help="also list the N most frequent opcodes of the "
                             "instructions inside loops (of the whole "
                             "kernel when it has none)")
    args = parser.parse_args()
    nvdisasm = find_tool("nvdisasm", args.nvdisasm)
    if not nvdisasm:
        sys.exit("sass-stats: nvdisasm not found (pip install "
                 "nvidia-cuda-nvdisasm, or set CUDA_HOME)")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = args.ptx
        if not args.ptx.endswith(".cubin"):
            ptxas = find_tool("ptxas", args.ptxas)
            if not ptxas:
                sys.exit("sass-stats: ptxas not found")
            cubin = os.path.join(tmp, "k.cubin")
            subprocess.run([ptxas, f"-arch={args.arch}", args.ptx, "-o", cubin],
                           check=True)
        text = subprocess.run([nvdisasm, "-c", cubin], check=True,
                              capture_output=True, text=True).stdout
    kernels, labels = parse(text)
    if not kernels:
        sys.exit("sass-stats: no kernels in the disassembly")
    for name in sorted(kernels):
        row = stats(kernels[name], labels, args.count)
        line = f"{name} instructions {row['instructions']} loops {row['loops']}"
        for prefix in args.count:
            total, looped = row[prefix]
            line += f" {prefix} total {total} loops {looped}"
        if args.cycles:
            line += " cycles " + " ".join(
                f"{at:#x}:{n}" for at, n in sorted(row["cycles"].items())
                if n >= 4)
        if args.pipes:
            line += " pipes " + " ".join(
                f"{at:#x}:" + ",".join(
                    f"{k}={v:g}" for k, v in row["pipes"][at].items())
                for at, n in sorted(row["cycles"].items()) if n >= 4)
        if args.histogram:
            line += " histogram " + " ".join(
                f"{op}:{n}" for op, n in row["histogram"][:args.histogram])
        print(line)


if __name__ == "__main__":
    main()
