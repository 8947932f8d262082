#!/usr/bin/env python3
"""Median and spread of benchmark figures measured over alternating rounds.

Samples are lines `name<TAB>round<TAB>value<TAB>unit` (round 0 = measured once), written by
`record` in Benchmarks/lib/common.sh or by `record()` below from a benchmark's Python code.

    stats.py SAMPLES [--ratio NAME=NUMERATOR/DENOMINATOR[*SCALE]:UNIT] ...

prints, in the order the figures were first recorded and then the ratios, one line each:

    name: MEDIAN UNIT (min MIN, max MAX, N rounds)      or      name: VALUE UNIT (once)

A ratio is computed within each round (the two sides measured back to back) and then summarised
the same way, so its spread shows how much the comparison itself moved between rounds. Each
figure's per-round values also go to stderr, for the log.
"""
import os
import statistics
import sys


def record(name, value, unit, round_number=0, path=None):
    """Append one sample (used by benchmarks whose measuring loop is in Python)."""
    with open(path or os.environ["BENCH_SAMPLES"], "a") as out:
        out.write(f"{name}\t{round_number}\t{float(value)!r}\t{unit}\n")


def fmt(value):
    magnitude = abs(value)
    digits = 0 if magnitude >= 100 else 1 if magnitude >= 10 else 2 if magnitude >= 1 else 3
    return f"{value:.{digits}f}"


def line(name, samples, unit):
    values = [v for _, v in samples]
    if len(values) == 1 and samples[0][0] == 0:
        return f"{name}: {fmt(values[0])} {unit} (once)"
    return (f"{name}: {fmt(statistics.median(values))} {unit} "
            f"(min {fmt(min(values))}, max {fmt(max(values))}, {len(values)} round{'' if len(values) == 1 else 's'})")


def parse_ratio(spec):
    try:
        name, rest = spec.split("=", 1)
        expr, unit = rest.rsplit(":", 1)
        scale = 1.0
        if "*" in expr:
            expr, factor = expr.split("*", 1)
            scale = float(factor)
        numerator, denominator = expr.split("/", 1)
        return name, numerator, denominator, scale, unit
    except ValueError:
        sys.exit(f"stats.py: bad --ratio {spec!r} (want NAME=NUM/DEN[*SCALE]:UNIT)")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.exit(__doc__)
    path, rest = argv[0], argv[1:]
    ratios = []
    while rest:
        if rest[0] != "--ratio" or len(rest) < 2:
            sys.exit(f"stats.py: unexpected argument {rest[0]!r}")
        ratios.append(parse_ratio(rest[1]))
        rest = rest[2:]

    figures, units = {}, {}
    with open(path) as samples:
        for number, raw in enumerate(samples, 1):
            if not raw.strip():
                continue
            try:
                name, round_number, value, unit = raw.rstrip("\n").split("\t")
                figures.setdefault(name, []).append((int(round_number), float(value)))
            except ValueError:
                sys.exit(f"stats.py: {path}:{number}: not name<TAB>round<TAB>value<TAB>unit: {raw!r}")
            if units.setdefault(name, unit) != unit:
                sys.exit(f"stats.py: {name} recorded in both {units[name]} and {unit}")
    if not figures:
        sys.exit("stats.py: no samples were recorded")

    lines = []
    for name, samples in figures.items():
        if len(samples) > 1:
            print(f"  {name} per round: " + ", ".join(f"{fmt(v)}" for _, v in samples), file=sys.stderr)
        lines.append(line(name, samples, units[name]))
    for name, numerator, denominator, scale, unit in ratios:
        for side in (numerator, denominator):
            if side not in figures:
                sys.exit(f"stats.py: ratio {name} needs {side}, which was not recorded")
        top, bottom = dict(figures[numerator]), dict(figures[denominator])
        paired = [(r, top[r] / bottom[r] * scale) for r in sorted(top) if r in bottom and bottom[r]]
        if not paired:
            sys.exit(f"stats.py: ratio {name}: no round has both {numerator} and {denominator}")
        print(f"  {name} per round: " + ", ".join(fmt(v) for _, v in paired), file=sys.stderr)
        lines.append(line(name, paired, unit))
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
