#!/usr/bin/env python3
"""Diagnostic coverage: every user-facing diagnostic emitted in lib/ has a test.

Finds each statement in lib/**/*.cpp that emits a diagnostic (emitError,
emitOpError, emitWarning, emitRemark, with or without a receiver, and
`emitError() <<` through an EmitErrorFn), takes the longest string literal of
the statement as its key, and looks for the key in the test suite:

  * for IR-reachable code (everything but lib/CAPI and lib/Runner): on an
    `expected-error` / `expected-warning` / `expected-remark` /
    `expected-note` line of a `-verify-diagnostics` test (test/**/*.mlir);
  * for lib/CAPI and lib/Runner, which no .mlir input reaches (null C API
    operands, values crossing functions, CPU runner limits): in a C, lit or
    pytest test (test/**/*.c, *.test, *.py);
  * for a diagnostic that qs-opt cannot reach, a comment just above it
    naming the test, `// Tested by test/...`, and the key in that file.

Prints one line per uncovered diagnostic (file:line: key) and exits 1 if
there is any; `--list` prints every diagnostic with where it is tested.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMIT = re.compile(r"\b(emitOpError|emitError|emitWarning|emitRemark)\s*\(")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
EXPECTED = re.compile(r"expected-(error|warning|remark|note)")
NON_IR = ("lib/CAPI/", "lib/Runner/")
TESTED_BY = re.compile(r"//\s*Tested by (test/\S+?)[:.,]?(\s|$)")


def statement(text, start):
    """Source from `start` to the end of the statement (the first `;`
    outside string and character literals)."""
    i, quote = start, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == ";":
            return text[start:i]
        i += 1
    return text[start:]


def unescape(s):
    return s.replace('\\"', '"').replace("\\\\", "\\").replace("\\n", "\n")


def diagnostics():
    """(path, line, key, literals) of every emitting statement in lib/."""
    for dirpath, _, files in os.walk(os.path.join(ROOT, "lib")):
        for name in sorted(files):
            if not name.endswith(".cpp"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            text = open(path).read()
            for m in EMIT.finditer(text):
                # Skip declarations/parameters such as `EmitErrorFn emitError,`.
                line_start = text.rfind("\n", 0, m.start()) + 1
                prefix = text[line_start:m.start()]
                if prefix.rstrip().endswith(("EmitErrorFn", "function_ref<InFlightDiagnostic()>")):
                    continue
                stmt = statement(text, m.start())
                literals = [unescape(s).strip() for s in LITERAL.findall(stmt)]
                literals = [s for s in literals if len(s.strip(" '.,:;()")) >= 3]
                if not literals:
                    continue  # forwards a message built elsewhere; covered there
                key = max(literals, key=len)
                above = "\n".join(text[:line_start].splitlines()[-3:])
                tested_by = TESTED_BY.search(above)
                yield (rel, text.count("\n", 0, m.start()) + 1, key,
                       tested_by.group(1) if tested_by else None)


def test_corpus():
    """(verify-diagnostics lines, other test text) of the suite."""
    expected, other = [], []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            if name.endswith(".mlir"):
                for i, line in enumerate(open(path, errors="replace"), 1):
                    if EXPECTED.search(line):
                        expected.append((f"{rel}:{i}", line))
                # FileChecked diagnostics of tools (not -verify-diagnostics).
                other.append((rel, open(path, errors="replace").read()))
            elif name.endswith((".c", ".test", ".py")):
                other.append((rel, open(path, errors="replace").read()))
    return expected, other


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every diagnostic and its test")
    args = parser.parse_args()
    expected, other = test_corpus()
    missing, total = [], 0
    for rel, line, key, tested_by in diagnostics():
        total += 1
        where = next((loc for loc, text in expected if key in text), None)
        if where is None and rel.startswith(NON_IR):
            where = next((r for r, text in other if key in text), None)
        if where is None and tested_by:
            where = next((r for r, text in other if r == tested_by and key in text), None)
        if args.list:
            print(f"{rel}:{line}: {key!r} -> {where or 'UNTESTED'}")
        if where is None:
            missing.append(f"{rel}:{line}: {key!r}")
    for m in missing:
        print(f"untested diagnostic: {m}")
    print(f"{total} diagnostics in lib/, {total - len(missing)} tested, {len(missing)} untested")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
