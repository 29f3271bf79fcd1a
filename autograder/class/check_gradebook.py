#!/usr/bin/python3
"""Checks what `launchlab grade-class` wrote in OUT against each results.json.

usage: check_gradebook.py OUT [--same-as OTHER_OUT] [--full STUDENT]...
                              [--order STUDENT,STUDENT,...] [--students N]

- every gradebook row's total, per-lab points and points not graded are what
  the student's results.json says (the sum of its tests, lab by lab);
- summary.md, summary.json and histograms.png (a PNG) are there;
- --same-as: OTHER_OUT's gradebook has the same students, points and seeds;
- --full: the student has every point that could be graded here, and some;
- --order: the students' totals never rise in the order given, and the first
  is above the last (without a GPU, a lab's CPU half alone may already be full);
- --students: the gradebook has that many rows.
Prints one line per failed check and 'gradebook: N passed, N failed'.
"""
import argparse
import csv
import json
import os
import sys

FIXED_COLUMNS = ("student", "name", "email", "total", "late_days", "grace_days_used", "penalty", "final", "graded_max",
                 "not_graded", "flags", "seed")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def expect(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {what}")


def read_gradebook(out):
    with open(os.path.join(out, "gradebook.csv"), newline="", encoding="utf-8") as source:
        return list(csv.DictReader(source))


def lab_columns(rows):
    return [name for name in (rows[0].keys() if rows else []) if name not in FIXED_COLUMNS]


def check_against_results(out, rows, checks):
    for row in rows:
        student = row["student"]
        path = os.path.join(out, student, "results.json")
        checks.expect(os.path.exists(path), f"{student} has a results.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as source:
            results = json.load(source)
        checks.expect(int(row["total"]) == results["score"],
                      f"{student}: gradebook total {row['total']} is results.json's score {results['score']}")
        extra = results.get("extra_data", {})
        checks.expect(int(row["not_graded"]) == extra.get("not_gradable_points", 0),
                      f"{student}: points not graded {row['not_graded']} match results.json")
        by_lab = {}
        for test in results.get("tests", []):
            lab = test.get("extra_data", {}).get("lab", "")
            by_lab[lab] = by_lab.get(lab, 0) + test["score"]
        for lab in lab_columns(rows):
            want = str(by_lab[lab]) if lab in by_lab else ""
            checks.expect(row[lab] == want, f"{student}: {lab} is {row[lab]!r} in the gradebook, {want!r} in results.json")


def check_files(out, checks):
    for name in ("summary.md", "summary.json"):
        checks.expect(os.path.getsize(os.path.join(out, name)) > 0 if os.path.exists(os.path.join(out, name)) else False,
                      f"{name} was written")
    png = os.path.join(out, "histograms.png")
    magic = b""
    if os.path.exists(png):
        with open(png, "rb") as source:
            magic = source.read(8)
    checks.expect(magic == b"\x89PNG\r\n\x1a\n", "histograms.png is a PNG")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--same-as")
    parser.add_argument("--full", action="append", default=[])
    parser.add_argument("--order")
    parser.add_argument("--students", type=int)
    args = parser.parse_args()

    checks = Checks()
    rows = read_gradebook(args.out)
    by_student = {row["student"]: row for row in rows}
    if args.students is not None:
        checks.expect(len(rows) == args.students, f"the gradebook has {len(rows)} rows, {args.students} expected")
    check_against_results(args.out, rows, checks)
    check_files(args.out, checks)
    for student in args.full:
        row = by_student.get(student)
        checks.expect(row is not None and int(row["graded_max"]) > 0 and row["total"] == row["graded_max"],
                      f"{student} has full marks of what could be graded here")
    if args.order:
        totals = [int(by_student[student]["total"]) if student in by_student else None for student in args.order.split(",")]
        checks.expect(None not in totals and all(a >= b for a, b in zip(totals, totals[1:])) and totals[0] > totals[-1],
                      f"the totals of {args.order} fall in that order: {totals}")
    if args.same_as:
        other = {row["student"]: row for row in read_gradebook(args.same_as)}
        checks.expect(sorted(other) == sorted(by_student), f"{args.same_as} grades the same students")
        for student, row in by_student.items():
            if student not in other:
                continue
            for column in lab_columns(rows) + ["total", "graded_max", "not_graded", "seed"]:
                checks.expect(row.get(column) == other[student].get(column),
                              f"{student}: {column} is {row.get(column)!r} here and {other[student].get(column)!r} "
                              f"in {args.same_as}")
    print(f"gradebook: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
