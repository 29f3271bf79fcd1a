#!/usr/bin/env python3
"""Checks a results.json the grader wrote in the container.

  check_results.py RESULTS.json full       every test that could run passed
  check_results.py RESULTS.json less       less than full marks
  check_results.py RESULTS.json zero LAB [TEXT]
                                           every test of LAB scored 0, and TEXT
                                           (if given) appears in the results
Exits 1 with a message saying what is wrong.
"""
import json
import sys


def fail(message):
    print(f"check_results: {sys.argv[1]}: {message}")
    sys.exit(1)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    try:
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
    except (OSError, ValueError) as error:
        fail(f"no valid results.json: {error}")
    tests = results.get("tests")
    if not isinstance(tests, list) or not tests:
        fail("results.json has no tests: it was not written by the grader")
    for test in tests:
        for key in ("name", "score", "max_score", "output"):
            if key not in test:
                fail(f"a test lacks {key!r}: {test}")
    outcomes = [t.get("extra_data", {}).get("outcome") for t in tests]
    if mode == "full":
        failed = [t["name"] for t, o in zip(tests, outcomes) if o == "failed"]
        if failed:
            fail(f"expected full marks, these failed: {failed[:5]}")
    elif mode == "less":
        if not results["score"] < sum(t["max_score"] for t in tests):
            fail(f"expected less than full marks, got {results['score']}")
    elif mode == "zero":
        lab = sys.argv[3]
        scored = [t["name"] for t in tests if t["name"].startswith(lab + ":") and t["score"] != 0]
        if scored:
            fail(f"expected 0 for every test of {lab}, these scored: {scored}")
        if not any(t["name"].startswith(lab + ":") for t in tests):
            fail(f"no test of {lab} in the results")
        if len(sys.argv) > 4:
            text = sys.argv[4]
            everything = results.get("output", "") + "".join(t["output"] for t in tests)
            if text not in everything:
                fail(f"expected the results to say {text!r}")
    else:
        fail(f"unknown mode {mode}")
    print(f"check_results: {path}: {mode} as expected (score {results.get('score')})")


if __name__ == "__main__":
    main()
