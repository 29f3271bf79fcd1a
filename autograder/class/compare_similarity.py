#!/usr/bin/env python3
"""sim_c++ against Dolos on the course's own solutions: the measurement behind
grade-class's choice of sim_c++ (docs/instructors.md, "Similarity"). Not a
test: nothing checks its figures.

For each lab, a class of made-up submissions of the lab's files:
  original   the course's solution
  renamed    the solution, every local variable and parameter renamed (clang's
             AST says which names those are and where each is used)
  reordered  the solution, the functions of each namespace in reverse order
  disguised  both, its comments removed, comments of its own written and its
             layout changed (clang-format in another style)
  starter    the lab's starter, handed in as it is
  honest-*   independent implementations: lab 04's are class_staff_test.cpp's
             four honest students, lab 00's are in similarity_honest/
and one more class, "unrelated": each lab's solution against the other labs'.
Every file is compared as grade-class compares it (similarity.cpp): the lines
the lab's starter holds are blanked first, and a pair's score is the largest
share over its files. A pair is flagged above --threshold, grade-class's
default.

needs: python3, clang++ and clang-format (to disguise), sim_c++; Dolos is
measured only where --dolos names a folder where `npm install
@dodona/dolos-lib` was run (which needs the network and Node).

usage: autograder/class/compare_similarity.py [--labs NN,NN] [--dolos DIR]
       [--threshold PERCENT] [--keep DIR]
"""
import argparse
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEW_NAMES = ["item", "pos", "count", "total", "value", "ptr", "buf", "entry", "cur", "acc", "tmp", "len", "idx",
             "res", "data", "obj", "x", "y", "z", "w", "k", "m", "q", "r", "s", "u", "t", "val", "elem", "node",
             "start", "stop", "step", "part", "chunk", "piece", "thing", "field", "key", "word", "line", "text",
             "spot", "mark", "arg", "input", "output", "src", "dst", "tally", "limit", "bound", "edge"]
COPIES = ("original", "renamed", "reordered", "disguised")

# Dolos through its library, with its default settings; C++ is named, since
# it does not take a .cu file for one.
DOLOS_RUN = """
import { Dolos } from "@dodona/dolos-lib";
const report = await new Dolos({ language: "cpp" }).analyzePaths(process.argv.slice(2));
for (const pair of report.allPairs())
  console.log(JSON.stringify([pair.leftFile.path, pair.rightFile.path, pair.similarity]));
"""


# ---- disguises -------------------------------------------------------------

def ast_of(source, includes):
    """clang's AST of the course's declarations (namespace launchlab), as the
    JSON objects it dumps."""
    command = ["clang++", "-std=c++20", "-fsyntax-only", "-ferror-limit=0", "-Xclang", "-ast-dump=json",
               "-Xclang", "-ast-dump-filter=launchlab"]
    if source.suffix == ".cu":
        # The host's view is enough to find the names.
        command += ["-x", "c++", "-D__global__=", "-D__device__=", "-D__host__=", "-D__forceinline__=inline"]
    command += [f"-I{d}" for d in includes] + [str(source)]
    out = subprocess.run(command, capture_output=True, text=True).stdout
    decoder, position, dumped = json.JSONDecoder(), 0, []
    while (start := out.find("{", position)) >= 0:
        node, position = decoder.raw_decode(out, start)
        dumped.append(node)
    return {"kind": "TranslationUnitDecl", "id": "root", "inner": dumped}


def nodes_of(root, source):
    """(node, whether it lies in source, its parents), in the dump's order: a
    location names its file only where the file changes."""
    current = [None]

    def see(location):
        if isinstance(location, dict):
            for key in ("spellingLoc", "expansionLoc"):
                see(location.get(key))
            current[0] = location.get("file", current[0])
        return current[0]

    def walk(node, parents):
        here = see(node.get("loc")) == str(source)
        see(node.get("range", {}).get("begin"))
        see(node.get("range", {}).get("end"))
        yield node, here, parents
        for child in node.get("inner", []):
            yield from walk(child, parents + [node])

    return list(walk(root, []))


def offset_of(location):
    location = location.get("spellingLoc", location)
    return location.get("offset"), location.get("tokLen")


def renames(text, nodes):
    """offset -> (length, new name): each local's and parameter's declaration
    and uses."""
    functions = ("FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "LambdaExpr", "FunctionTemplateDecl")
    declared, edits = {}, {}
    for node, here, parents in nodes:
        if not here or node.get("kind") not in ("ParmVarDecl", "VarDecl", "BindingDecl") or "name" not in node:
            continue
        if not any(parent.get("kind") in functions for parent in parents):
            continue
        offset, length = offset_of(node["loc"])
        if offset is None or text[offset:offset + length] != node["name"]:
            continue
        # A lambda's parameters are dumped twice, under two ids: where a
        # variable is declared is what names it.
        declared[node["id"]] = (node["name"], offset)
        edits[offset] = (length, offset)
    for node, _, _ in nodes:
        target = node.get("referencedDecl", {}).get("id") if node.get("kind") == "DeclRefExpr" else None
        if target in declared:
            offset, length = offset_of(node["range"]["begin"])
            name, declared_at = declared[target]
            if offset is not None and text[offset:offset + length] == name:
                edits[offset] = (length, declared_at)
    taken = set(re.findall(r"\w+", text))
    fresh = (name for name in NEW_NAMES + [f"v{i}" for i in range(1000)] if name not in taken)
    names = {declared_at: next(fresh) for declared_at in sorted({at for _, at in declared.values()})}
    return {offset: (length, names[at]) for offset, (length, at) in edits.items()}


def comment_lines_above(text, begin):
    """Where the comment lines right above begin start."""
    start = text.rfind("\n", 0, begin) + 1
    while start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text[previous:start].lstrip().startswith("//"):
            break
        start = previous
    return start


def function_moves(text, nodes):
    """((place), (piece)) pairs: in each namespace, the last function in the
    first one's place and so on."""
    groups = {}
    for node, here, parents in nodes:
        if not here or not parents or node.get("kind") not in ("FunctionDecl", "FunctionTemplateDecl"):
            continue
        if parents[-1].get("kind") not in ("NamespaceDecl", "TranslationUnitDecl"):
            continue
        definition = node if node["kind"] == "FunctionDecl" else next(
            (child for child in node.get("inner", []) if child.get("kind") == "FunctionDecl"), {})
        if not any(child.get("kind") == "CompoundStmt" for child in definition.get("inner", [])):
            continue
        begin, _ = offset_of(node["range"]["begin"])
        end, length = offset_of(node["range"]["end"])
        if begin is not None and end is not None:
            groups.setdefault(parents[-1]["id"], set()).add((comment_lines_above(text, begin), end + length))
    moves = []
    for spans in groups.values():
        spans = sorted(spans)
        moves += list(zip(spans, reversed(spans)))
    return moves


def rewritten(text, edits, moves):
    def piece(begin, end):
        out, position = [], begin
        for offset in sorted(o for o in edits if begin <= o < end):
            length, name = edits[offset]
            out += [text[position:offset], name]
            position = offset + length
        return "".join(out) + text[position:end]

    out, position = [], 0
    for (begin, end), (from_begin, from_end) in sorted(moves):
        out += [piece(position, begin), piece(from_begin, from_end)]
        position = end
    return "".join(out) + piece(position, len(text))


def reworded(text):
    """Comments removed, one of the copier's own above each function, and the
    layout of another style."""
    strings_or_comments = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    text = strings_or_comments.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else "", text)
    function_start = r"\n(?=(?:static |inline |template|[A-Za-z_][\w:<>,\s*&]*\s+[\w:]+\s*\([^;{}]*\)\s*(?:const\s*)?\{))"
    text = re.sub(function_start, "\n// helper\n", text)
    style = "{BasedOnStyle: Microsoft, IndentWidth: 2, ColumnLimit: 90, BreakBeforeBraces: Allman}"
    return subprocess.run(["clang-format", f"--style={style}", "--assume-filename=copy.cpp"], input=text,
                          capture_output=True, text=True, check=True).stdout


def disguises(source, includes):
    text = source.read_text()
    nodes = nodes_of(ast_of(source, includes), source)
    edits, moves = renames(text, nodes), function_moves(text, nodes)
    return {"original": text, "renamed": rewritten(text, edits, []), "reordered": rewritten(text, {}, moves),
            "disguised": reworded(rewritten(text, edits, moves))}


# ---- the class of each lab -------------------------------------------------

def honest_students(slug):
    """{student: {file: text}}: the independent implementations at hand."""
    students = {}
    if slug == "04_param_buffer":
        test = (ROOT / "autograder/selftest/class_staff_test.cpp").read_text()
        head = re.search(r"std::string honest_file\(const char\* functions\) \{\s*return std::string\((.*?)\)\s*\+"
                         r"\s*functions \+ \"(.*?)\";", test, re.S)
        before = "".join(re.findall(r'"((?:\\.|[^"\\])*)"', head.group(1))).encode().decode("unicode_escape")
        after = head.group(2).encode().decode("unicode_escape")
        for name, functions in re.findall(r'const char\* const k(Carol|Dave|Erin|Frank) = R"cpp\((.*?)\)cpp";', test, re.S):
            students[f"honest-{name.lower()}"] = {"layout.cpp": before + functions + after}
    folder = ROOT / "autograder/class/similarity_honest" / slug
    for student in sorted(folder.iterdir()) if folder.is_dir() else []:
        students[f"honest-{student.name}"] = {f.name: f.read_text() for f in sorted(student.iterdir())}
    return students


def lab_class(slug, includes):
    lab = tomllib.loads((ROOT / "labs" / slug / "lab.toml").read_text())
    students = {name: {} for name in COPIES}
    students["starter"] = {}
    for name in lab["student_files"]:
        for kind, text in disguises(ROOT / "solutions" / slug / name, includes).items():
            students[kind][name] = text
        students["starter"][name] = (ROOT / "labs" / slug / name).read_text()
    students.update(honest_students(slug))
    return students


def without_starter_lines(text, starter_text):
    """similarity.cpp's rule: a line the starter holds (trimmed) is blanked."""
    starter = {line.strip(" \t\r") for line in starter_text.split("\n")} - {""}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "".join(("" if line.strip(" \t\r") in starter else line) + "\n" for line in lines)


def write_class(folder, slug, students):
    paths = []
    for student, files in students.items():
        for name, text in files.items():
            path = folder / slug / student / name
            path.parent.mkdir(parents=True, exist_ok=True)
            starter = ROOT / "labs" / slug / name
            path.write_text(without_starter_lines(text, starter.read_text()) if starter.is_file() else text)
            paths.append(path.relative_to(folder).as_posix())
    return paths


# ---- the tools ---------------------------------------------------------------

def pair_scores(matches):
    """{(a, b): largest share} over the files of each pair of students."""
    scores = {}
    for left, right, share in matches:
        a, b = sorted((left.split("/")[1], right.split("/")[1]))
        if a != b:
            scores[a, b] = max(scores.get((a, b), 0), share)
    return scores


def run_sim(folder, paths):
    """As grade-class runs it: the shares (-p), then the runs (-n)."""
    started = time.monotonic()
    shares = subprocess.run(["sim_c++", "-p", "-e", "-s", *paths], cwd=folder, capture_output=True, text=True,
                            check=True).stdout
    subprocess.run(["sim_c++", "-e", "-s", "-n", *paths], cwd=folder, capture_output=True, check=True)
    seconds = time.monotonic() - started
    matches = [(m[1], m[3], int(m[2])) for m in re.finditer(r"^(\S+) consists for (\d+) % of (\S+) material", shares, re.M)]
    return pair_scores(matches), seconds


def run_dolos(folder, paths, dolos_dir):
    script = Path(dolos_dir) / "compare_similarity.mjs"
    script.write_text(DOLOS_RUN)
    started = time.monotonic()
    out = subprocess.run(["node", str(script), *paths], cwd=folder, capture_output=True, text=True, check=True).stdout
    seconds = time.monotonic() - started
    matches = [(left, right, round(100 * similarity)) for left, right, similarity in map(json.loads, out.splitlines())]
    return pair_scores(matches), seconds


def kind_of(a, b):
    return "copy" if a in COPIES and b in COPIES else "honest"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labs", default="00,03,04,07,12")
    parser.add_argument("--dolos", help="a folder where `npm install @dodona/dolos-lib` was run")
    parser.add_argument("--threshold", type=int, default=50)
    parser.add_argument("--keep", help="write the compared files here and keep them")
    args = parser.parse_args()
    missing = [tool for tool in ("clang++", "clang-format", "sim_c++") if not shutil.which(tool)]
    if missing:
        sys.exit(f"compare_similarity.py needs {', '.join(missing)} (Debian: clang, clang-format, similarity-tester)")
    slugs = sorted(d.name for d in (ROOT / "labs").iterdir() if d.is_dir() and d.name[:2] in args.labs.split(","))
    # cuda.h too, for the names the labs take from it (CMake's search, in short).
    cuda = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "include"
    includes = sorted(d for d in (ROOT / "labs").iterdir() if d.is_dir()) + [cuda]
    dolos = args.dolos and (Path(args.dolos) / "node_modules/@dodona/dolos-lib").is_dir()
    if not dolos:
        print("Dolos not measured: no --dolos folder with @dodona/dolos-lib installed "
              "(npm install --prefix DIR @dodona/dolos-lib needs the network and Node)\n")
    folder = Path(args.keep or tempfile.mkdtemp(prefix="similarity-"))
    shutil.rmtree(folder, ignore_errors=True)
    classes = {slug: lab_class(slug, includes) for slug in slugs}
    classes["unrelated"] = {slug: {f"{slug}-{name}": text for name, text in students["original"].items()}
                            for slug, students in classes.items()}
    rows, seconds = [], {"sim_c++": 0.0, "Dolos": 0.0}
    for group, students in classes.items():
        paths = write_class(folder, group, students)
        sim, seconds_sim = run_sim(folder, paths)
        seconds["sim_c++"] += seconds_sim
        if dolos:
            dolos_scores, seconds_dolos = run_dolos(folder, paths, args.dolos)
            seconds["Dolos"] += seconds_dolos
        for a, b in itertools.combinations(sorted(students), 2):
            kind = "honest" if group == "unrelated" else kind_of(a, b)
            rows.append((group, f"{a} / {b}", kind, sim.get((a, b), 0), dolos_scores.get((a, b), 0) if dolos else None))
    tools = ["sim_c++"] + (["Dolos"] if dolos else [])
    print("| lab | pair | kind | " + " | ".join(f"{t} %" for t in tools) + " |")
    print("|---|---|---|" + "---|" * len(tools))
    for group, pair, kind, *scores in rows:
        marks = [f"{s}{' *' if s > args.threshold else ''}" for s in scores[:len(tools)]]
        print(f"| {group} | {pair} | {kind} | " + " | ".join(marks) + " |")
    print(f"\n(* above the threshold, {args.threshold}%)\n")
    for column, tool in enumerate(tools):
        copies = [r[3 + column] for r in rows if r[2] == "copy"]
        honest = [r[3 + column] for r in rows if r[2] == "honest"]
        print(f"{tool}: copies found {sum(s > args.threshold for s in copies)} of {len(copies)} "
              f"(lowest {min(copies)}%), honest pairs above the threshold {sum(s > args.threshold for s in honest)} "
              f"of {len(honest)} (highest {max(honest)}%), {seconds[tool]:.2f} s for {len(classes)} classes")
    if not args.keep:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
