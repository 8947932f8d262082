#!/usr/bin/env python3
"""Fails when server code can trap on what a request, a file or the database supplies.

Looks for force-unwraps (`x!`, `f()!`, `a[i]!`), `try!`, `as!`, `fatalError(` and `precondition(`
in Sources/HibiApp and Sources/hibi, outside comments and string literals (but inside string
interpolations, where `"\\(entry!.id)"` hides a trap just as well). A line that is provably safe
says why with a `// trap-check: <reason>` comment; the reason is required.

Also two traps that need a little reading of the code:

- A floating value made an integer with `Int(…)`, `Int64(…)`, `UInt32(…)` and the rest, which traps
  on NaN, infinity or anything past the type's ends (one imported step count of 1e19 stopped every
  page). Use `Int(saturating:)` (Shared/Numbers/WholeNumber.swift). The argument counts as floating
  when it contains `.rounded(`, `timeIntervalSince…`, `Double(`/`Float(`/`CGFloat`/`TimeInterval(`,
  a literal with a decimal point, `ceil`/`floor`/`sqrt`/`pow`/`.squareRoot()`, or a name this file
  declares as `Double`/`Float`/`CGFloat`/`TimeInterval` (or `= 0.0`) and nowhere as anything else.
  That last rule is deliberately conservative: a name declared with two types in one file is not
  guessed at. A property reached through another value (`Int(settings.distanceMeters)`) counts as
  floating when the code checked declares that name only as a floating value, in any file.
- Unchecked `+`, `-` or `*` applied directly to an integer read from a database row
  (`row.decode(column: …, as: Int64.self) + 1`): a stored value can be anything a restore or
  another version wrote. Use `&+` or `addingReportingOverflow` and say what happens at the end.

Usage: scripts/check-traps.py [DIR ...]   exit 1 and a list when anything is found.
       scripts/check-traps.py --self-test   checks that planted traps are found and safe lines are not.
"""
import os
import re
import sys

ROOTS = sys.argv[1:] or ["Sources/HibiApp", "Sources/hibi"]
TRAP = re.compile(r"(?:[\w\)\]\}>]!(?![=]))|\btry!|\bas!|\bfatalError\(|\bprecondition\(|\bpreconditionFailure\(")
# Foundation's `FileHandle.write(_:)`, `readDataToEndOfFile()`, `readData(ofLength:)` and `seekToEndOfFile()` trap
# on an I/O error (a full disk killed a test server through its log handler); their throwing forms
# (`write(contentsOf:)`, `readToEnd()`, `read(upToCount:)`, `seekToEnd()`) do not.
FILE_HANDLE_TRAP = re.compile(r"\.(?:write\((?!\s*contentsOf\s*:)|readDataToEndOfFile\(|readData\(ofLength|seekToEndOfFile\()")
FILE_HANDLE_NAME = re.compile(r"FileHandle|[hH]andle\b|\bstandard(?:Error|Output)\b")


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


INTEGER_INIT = re.compile(r"(?<![\w.])(U?Int(?:8|16|32|64)?)\(")
# Labels that make the conversion checked (or that take an integer, a string or bytes).
SAFE_LABEL = re.compile(r"\s*(exactly|clamping|truncatingIfNeeded|bitPattern|saturating|littleEndian|bigEndian)\s*:")
FLOATING_SIGN = re.compile(
    r"\.rounded\(|timeIntervalSince|\b(?:Double|Float|Float32|Float64|CGFloat|TimeInterval)\(|\bCGFloat\b|"
    r"(?<![\w.])\d[\d_]*\.\d|\b(?:ceil|floor|round|trunc|sqrt|pow|exp|log|log2|log10)\(|\.squareRoot\(")
FLOAT_TYPES = r"(?:Double|Float|Float32|Float64|CGFloat|TimeInterval)"
DECLARED = re.compile(r"\b(?:let|var)\s+(\w+)\s*(?::\s*([\w.<>\[\]?]+)|=\s*([^,;\n]+))")
PARAMETER = re.compile(r"[(,]\s*(?:\w+\s+)?(\w+)\s*:\s*([\w.<>\[\]]+\??)")
STORED_ARITHMETIC = re.compile(
    r"decode\(column:[^()]*,\s*as:\s*U?Int(?:8|16|32|64)?\??\.self\)\s*[-+*](?![=&])|"
    r"[^&\s=!<>]\s*[-+*]\s*(?:try\s+)?\w+\.decode\(column:[^()]*,\s*as:\s*U?Int(?:8|16|32|64)?\??\.self\)")


def floating_names(code):
    """Names this file declares only as floating values (see the module comment for why only these)."""
    floating, other = declarations(code)
    return floating - other


def declarations(code, parameters=True):
    """(names declared as floating values, names declared as anything else) in one file; without
    `parameters`, only `let`/`var` count (a call's labels look like parameters to this reading)."""
    floating, other = set(), set()
    for name, annotated, assigned in DECLARED.findall(code):
        if annotated:
            (floating if re.fullmatch(FLOAT_TYPES + r"\??", annotated) else other).add(name)
        elif assigned:
            value = assigned.strip()
            if re.match(r"-?\d[\d_]*\.\d[\d_]*\b", value) or re.match(FLOAT_TYPES + r"\(", value):
                floating.add(name)
            else:
                other.add(name)
    for name, annotated in PARAMETER.findall(code) if parameters else []:
        (floating if re.fullmatch(FLOAT_TYPES + r"\??", annotated) else other).add(name)
    return floating, other


def module_floating(codes):
    """Names declared only as floating values across all the files checked: what `x.name` may be."""
    floating, other = set(), set()
    for code in codes:
        f, o = declarations(code, parameters=False)
        floating |= f
        other |= o
    return floating - other


def argument(line, start):
    """The text between the parenthesis at `start` and its match (or the line's end)."""
    depth = 0
    for i in range(start, len(line)):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return line[start + 1:i]
    return line[start + 1:]


TYPE_KEEPING = {"max", "min", "abs"}


def outer(text):
    """`text` with the arguments of calls blanked (they do not decide the type: `Int64(zone.secondsFromGMT(
    for: Date(timeIntervalSince1970: t)))` converts an Int), except inside grouping parentheses and
    `max`/`min`/`abs`, whose result has their arguments' type."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "(":
            inner = argument(text, i)
            callee = re.search(r"(\w+)\s*$", text[:i])
            if callee is None or callee.group(1) in TYPE_KEEPING:
                out.append("(" + outer(inner) + ")")
            else:
                out.append("()")
            i += len(inner) + 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def conversions_of_floating(line, names, members=frozenset()):
    """Start offsets of the integer conversions in `line` whose argument is a floating value."""
    found = []
    for match in INTEGER_INIT.finditer(line):
        inside = argument(line, match.end() - 1)
        if SAFE_LABEL.match(inside):
            continue
        # Calls whose name says floating (`Double(…)`, `floor(…)`) are signs even with their arguments blanked.
        shown = outer(inside)
        if FLOATING_SIGN.search(shown):
            found.append(match.end())
            continue
        tokens = set(re.findall(r"(?<![.\w])([A-Za-z_]\w*)\b(?!\s*\()", shown))
        properties = set(re.findall(r"(?<=[\w)\]?])\.([A-Za-z_]\w*)\b(?!\s*\()", shown))
        if tokens & names or properties & members:
            found.append(match.end())
    return found


def integer_conversion_of_floating(line, names, members=frozenset()):
    return bool(conversions_of_floating(line, names, members))


def problems(text, members=None):
    """(line number, kind) of every unexplained trap in one file's text; `members` are the floating property
    names of all the code checked (this file's own when not given)."""
    code = code_only(text)
    names = floating_names(code)
    if members is None:
        members = module_floating([code])
    original = text.split("\n")
    out = []
    for number, line in enumerate(code.split("\n"), 1):
        kind = None
        if TRAP.search(line):
            kind = "trap"
        elif FILE_HANDLE_TRAP.search(line) and FILE_HANDLE_NAME.search(line):
            kind = "FileHandle call that traps on an I/O error (use the throwing form)"
        elif integer_conversion_of_floating(line, names, members):
            kind = "floating to integer (use Int(saturating:))"
        elif STORED_ARITHMETIC.search(line):
            kind = "unchecked arithmetic on a stored integer"
        if kind is None:
            continue
        if re.search(r"//\s*trap-check:\s*\S", original[number - 1]):
            continue
        out.append((number, kind))
    return out


PLANTED = [
    "let n = Int(value.rounded())",
    "func f(steps: Double) -> Int { Int(steps) }",
    "let t = Int64(now.timeIntervalSince1970)",
    "let w = Int(Double(count) / Double(total) * 250)",
    "let x = Int(2.5 * factor)",
    "var hours = 0.0\nlet m = Int(hours * 60)",
    "let width: CGFloat = 3\nlet i = Int32(width)",
    "let later = try row.decode(column: \"seq\", as: Int64.self) + 1",
    "let a = base * row.decode(column: \"n\", as: Int.self)",
    "let s = \"\\(Int(ratio.rounded()))%\"",
    "let every = Duration.milliseconds(Int64(max(lease / 3, 0.2) * 1000))",
    "struct Settings { var distanceMeters: Double }\nlet shown = String(Int(settings.distanceMeters))",
    "FileHandle.standardError.write(Data(line.utf8))",
    "let all = handle.readDataToEndOfFile()",
]
SAFE = [
    "let n = Int(saturating: value.rounded())",
    "let n = Int(raw)",
    "let n = Int(exactly: value)",
    "let n = Int64(count) * 2",
    "let s = \"Int(value.rounded())\"",
    "// Int(value.rounded()) in a comment",
    "let n = Int(text, radix: 16)",
    "let raw: String = \"\"\nlet n = Int(raw)",
    "let later = try row.decode(column: \"seq\", as: Int64.self) &+ 1",
    "let n = Int(value.rounded()) // trap-check: value is in 0...100 (checked above)",
    "let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t))))",
    "struct Settings { var durationMinutes: Int }\nlet shown = Int(settings.durationMinutes)",
    "try? FileHandle.standardError.write(contentsOf: Data(line.utf8))",
    "try handle.write(contentsOf: chunk)",
    "writer.write(line)",
]


def self_test():
    failures = [f"not flagged: {c!r}" for c in PLANTED if not problems(c)]
    failures += [f"flagged but safe: {c!r} {problems(c)}" for c in SAFE if problems(c)]
    if failures:
        print("check-traps self-test failed:\n" + "\n".join(failures))
        return 1
    print(f"check-traps self-test: {len(PLANTED)} planted traps found, {len(SAFE)} safe lines passed")
    return 0


def main():
    if ROOTS == ["--self-test"]:
        return self_test()
    texts = {}
    for root in ROOTS:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith(".swift"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as f:
                        texts[path] = f.read()
    members = module_floating([code_only(text) for text in texts.values()])
    found = []
    for path, text in texts.items():
        original = text.split("\n")
        for number, kind in problems(text, members):
            found.append(f"{path}:{number}: [{kind}] {original[number - 1].strip()}")
    if found:
        print("Lines that can trap on input (handle the nil or error, or explain with '// trap-check: why'):")
        print("\n".join(found))
        return 1
    print(f"check-traps: no unexplained traps in {', '.join(ROOTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
