#!/usr/bin/env python3
"""Fails when server code can trap on what a request, a file or the database supplies.

Looks for force-unwraps (`x!`, `f()!`, `a[i]!`), `try!`, `as!`, `fatalError(` and `precondition(`
in Sources/HibiApp and Sources/hibi, outside comments and string literals (but inside string
interpolations, where `"\\(entry!.id)"` hides a trap just as well). A line that is provably safe
says why with a `// trap-check: <reason>` comment; the reason is required.

Usage: scripts/check-traps.py [DIR ...]   exit 1 and a list when anything is found.
"""
import os
import re
import sys

ROOTS = sys.argv[1:] or ["Sources/HibiApp", "Sources/hibi"]
TRAP = re.compile(r"(?:[\w\)\]\}>]!(?![=]))|\btry!|\bas!|\bfatalError\(|\bprecondition\(|\bpreconditionFailure\(")


def code_only(text):
    """The source with comments removed and string literal text blanked, keeping interpolations."""
    out = []
    i, n = 0, len(text)
    # Stack of contexts: 'code' or ('string', hashes, multiline); interpolation depth tracked by parens.
    stack = [["code", 0]]  # for code: paren depth inside an interpolation
    while i < n:
        top = stack[-1]
        c = text[i]
        if top[0] == "code":
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                out.append(" " * (j - i))
                i = j
                continue
            if text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
                i = j
                continue
            m = re.match(r'(#*)("""|")', text[i:])
            if m and (m.group(1) == "" or True) and (c == '"' or c == "#"):
                hashes, quote = len(m.group(1)), m.group(2)
                stack.append(["string", hashes, quote == '"""'])
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
                continue
            if c == "(":
                top[1] += 1
            elif c == ")":
                if top[1] == 0 and len(stack) > 1:
                    stack.pop()  # end of an interpolation: back into the string
                    out.append(" ")
                    i += 1
                    continue
                top[1] -= 1
            out.append(c)
            i += 1
        else:
            _, hashes, multiline = top
            close = ('"""' if multiline else '"') + "#" * hashes
            if text.startswith(close, i):
                stack.pop()
                out.append(" " * len(close))
                i += len(close)
                continue
            escape = "\\" + "#" * hashes
            if text.startswith(escape + "(", i):
                stack.append(["code", 0])
                out.append(" " * (len(escape) + 1))
                i += len(escape) + 1
                continue
            if text.startswith(escape, i) and i + len(escape) < n:
                out.append("  " if text[i + len(escape)] != "\n" else " \n")
                i += len(escape) + 1
                continue
            out.append("\n" if c == "\n" else " ")
            i += 1
    return "".join(out)


def main():
    found = []
    for root in ROOTS:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                original = text.split("\n")
                for number, line in enumerate(code_only(text).split("\n"), 1):
                    if TRAP.search(line):
                        source = original[number - 1]
                        if re.search(r"//\s*trap-check:\s*\S", source):
                            continue
                        found.append(f"{path}:{number}: {source.strip()}")
    if found:
        print("Lines that can trap on input (handle the nil or error, or explain with '// trap-check: why'):")
        print("\n".join(found))
        return 1
    print(f"check-traps: no unexplained traps in {', '.join(ROOTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
