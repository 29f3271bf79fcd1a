#!/usr/bin/env python3
"""Checks a results.json the grader wrote.

  check_results.py RESULTS.json full       every test that could run passed
  check_results.py RESULTS.json less       less than full marks
  check_results.py RESULTS.json zero LAB [TEXT]
                                           every test of LAB scored 0, and TEXT
                                           (if given) appears in the results
  check_results.py RESULTS.json like BASELINE.json LAB
                                           every test of LAB scored as in BASELINE.json
  check_results.py RESULTS.json expect EXPECT MODE [LOG]
                                           what an exploit's expect file says
                                           (autograder/exploits/prove.sh says how), for
                                           MODE (docker, host or gradescope); LOG
                                           is the grader's output, which must not leak
  check_results.py - directives EXPECT MODE
                                           prints the expect file's lines that
                                           apply in MODE, one a line
Exits 1 with a message saying what is wrong.
"""
import json
import re
import sys

MODES = ("docker", "host", "gradescope")
# What each line of an expect file may say, and how many words it takes.
DIRECTIVES = {
    "zero": "LAB [TEXT]",
    "zero-tests": "PREFIX",
    "full-tests": "PREFIX",
    "say": "TEXT",
    "leak": "TEXT",
    "grade": "ARGS",
    "then-empty": "",
    "sandboxed": "",
    # Graded in docker/ci.sh's Gradescope sample as well, as Gradescope grades.
    "gradescope": "",
}


def fail(message):
    print(f"check_results: {sys.argv[1]}: {message}")
    sys.exit(1)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
    except (OSError, ValueError) as error:
        fail(f"no valid results.json: {error}")
    tests = results.get("tests") if isinstance(results, dict) else None
    if not isinstance(tests, list) or not tests:
        fail("results.json has no tests: it was not written by the grader")
    for test in tests:
        for key in ("name", "score", "max_score", "output"):
            if key not in test:
                fail(f"a test lacks {key!r}: {test}")
    return results, tests


def written_by_grader(results, tests):
    # The grader's own fields, which no forgery in the catalogue imitates.
    if "gradable_max_score" not in results.get("extra_data", {}):
        fail("results.json lacks extra_data.gradable_max_score: it was not written by the grader")
    for test in tests:
        if "outcome" not in test.get("extra_data", {}) or "lab" not in test.get("extra_data", {}):
            fail(f"test {test['name']!r} lacks the grader's extra_data: it was not written by the grader")


def texts(results, tests):
    """Everything results.json says, as a person reads it."""
    return results.get("output", "") + "\n" + "\n".join(t["name"] + "\n" + t["output"] for t in tests)


def of_lab(tests, lab):
    return [t for t in tests if t["name"].startswith(lab + ":")]


def with_prefix(tests, prefix):
    found = [t for t in tests if t["name"].startswith(prefix)]
    if not found:
        fail(f"no test named {prefix}... in the results")
    return found


def directives(path, mode):
    """The (directive, argument) pairs of an expect file that apply in mode."""
    lines = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            only = re.match(r"^(\w+): (.*)$", line)
            if only and only.group(1) in MODES:
                if only.group(1) != mode:
                    continue
                line = only.group(2)
            word, _, argument = line.partition(" ")
            if word not in DIRECTIVES:
                print(f"check_results: {path}:{number}: unknown line {line!r}; "
                      f"known: {', '.join(DIRECTIVES)}, each optionally after 'docker: ', 'host: ' or 'gradescope: '")
                sys.exit(1)
            lines.append((word, argument.strip()))
    return lines


def check_expect(results, tests, expect, mode, log_path):
    written_by_grader(results, tests)
    everything = texts(results, tests)
    raw = json.dumps(results)
    log = ""
    if log_path:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            log = f.read()
    said = []
    lines = directives(expect, mode)
    # An exploit that does not compile proves nothing of its attack, which
    # never ran: that is wanted only where the expect file says so.
    if any(failed in everything for failed in ("did not compile", "could not be configured")) and not any(
            word == "say" and "did not compile" in argument for word, argument in lines):
        fail("the submission did not compile, so its attack never ran (an expect file that wants this "
             "says 'say the lab did not compile')")
    for word, argument in lines:
        if word == "zero":
            lab, _, text = argument.partition(" ")
            lab_tests = of_lab(tests, lab)
            if not lab_tests:
                fail(f"no test of {lab} in the results")
            scored = [t["name"] for t in lab_tests if t["score"] != 0]
            if scored:
                fail(f"expected 0 for every test of {lab}, these scored: {scored}")
            if text and text not in everything:
                fail(f"expected the results to say {text!r}")
            said.append(f"{lab} 0/{sum(t['max_score'] for t in lab_tests)}")
        elif word == "zero-tests":
            scored = [t["name"] for t in with_prefix(tests, argument) if t["score"] != 0]
            if scored:
                fail(f"expected 0 for the tests {argument}..., these scored: {scored}")
            said.append(f"{argument}* 0")
        elif word == "full-tests":
            short = [t["name"] for t in with_prefix(tests, argument) if t["score"] != t["max_score"] or t["max_score"] == 0]
            if short:
                fail(f"expected full marks for the tests {argument}..., these did not get them: {short}")
            said.append(f"{argument}* full")
        elif word == "say":
            if argument not in everything:
                fail(f"expected the results to say {argument!r}")
        elif word == "leak":
            for where, text in (("results.json", everything), ("results.json", raw), ("the grader's output", log)):
                if argument in text:
                    fail(f"{where} holds {argument!r}, which the submission must never reach")
    return "; ".join(said)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "directives":
        for word, argument in directives(sys.argv[3], sys.argv[4]):
            print(f"{word} {argument}".rstrip())
        return
    results, tests = load(path)
    outcomes = [t.get("extra_data", {}).get("outcome") for t in tests]
    summary = f"score {results.get('score')}"
    if mode == "full":
        failed = [t for t, o in zip(tests, outcomes) if o == "failed"]
        if failed:
            # Each distinct output once, so that CI's log says why.
            outputs = list(dict.fromkeys(t.get("output", "")[:800] for t in failed))
            fail(f"expected full marks, {len(failed)} failed, the first {[t['name'] for t in failed[:5]]}; "
                 + "their outputs:\n" + "\n---\n".join(outputs[:3]))
    elif mode == "less":
        if not results["score"] < sum(t["max_score"] for t in tests):
            fail(f"expected less than full marks, got {results['score']}")
    elif mode == "zero":
        lab = sys.argv[3]
        scored = [t["name"] for t in of_lab(tests, lab) if t["score"] != 0]
        if scored:
            fail(f"expected 0 for every test of {lab}, these scored: {scored}")
        if not of_lab(tests, lab):
            fail(f"no test of {lab} in the results")
        if len(sys.argv) > 4 and sys.argv[4] not in texts(results, tests):
            fail(f"expected the results to say {sys.argv[4]!r}")
    elif mode == "like":
        baseline_results, baseline_tests = load(sys.argv[3])
        lab = sys.argv[4]
        want = {t["name"]: t["score"] for t in of_lab(baseline_tests, lab)}
        got = {t["name"]: t["score"] for t in of_lab(tests, lab)}
        if not want or want != got:
            differ = sorted(n for n in set(want) | set(got) if want.get(n) != got.get(n))
            fail(f"expected {lab} to score as in {sys.argv[3]}; these differ: {differ}")
    elif mode == "expect":
        summary = check_expect(results, tests, sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    else:
        fail(f"unknown mode {mode}")
    print(f"check_results: {path}: {mode} as expected ({summary})")


if __name__ == "__main__":
    main()
