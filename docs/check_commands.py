#!/usr/bin/env python3
"""Every command the guides show runs, or says why it cannot run here.

The doc test docs.commands (docs/CMakeLists.txt, label docs, so that
`./launchlab check` runs it) reads every ```console, ```sh and ```shell
block of README.md, docs/*.md and chapters/**/*.md:

- in a console block a command is a line that starts with "$ ", the lines
  after it are its output; in a sh or shell block every line that is not
  blank and not a comment is a command;
- a line that ends with a backslash, a pipe or `&&` goes on to the next one;
- a command that cannot run in the course's CI (no GPU, no driver tools,
  no Docker, no network, or minutes of building) says so in its trailing
  comment: `# needs: gpu`, or `# the SASS (needs: driver-tools)`. The words
  are the keys of NEEDS below, and docs/authoring.md lists them;
- a command the page shows failing says `# fails on purpose`: it runs, and
  must exit with a status other than 0.

Every `./launchlab` command, marked or not, is checked for its syntax: its
subcommand answers --help and every option it uses is one that help names.
`trace` and the inspect tools are built from the learner's labs before they
answer --help, which takes minutes: of those, only the subcommand is checked
(`launchlab --help` names it).
A marked command that runs a file of the course must name one that exists.
The unmarked commands then run, block by block and in order in one shell
(a `cd` or an `export` lasts to the end of its block), in a copy of the
course, with `./launchlab` standing for the launchlab program already
built; each must exit with status 0. The copy is one for all pages, read in
order as a reader goes through them: what a command makes stays for the
pages after it, and a chapter's own files (chapter 00's vadd.cu, which the
reader is asked to save) are put beside the course's root before its
commands run. A command shown again, word for word, runs only the first time. In a
student edition (`launchlab export-student`) the README is the one the
export writes, for the edition's learners; it is left out here. Commands that grade the whole course,
build everything or wait for the reader (`grade`, `check`, `test`, `watch`,
`docs`) are marked `long`: only their syntax is checked, which is what keeps
this test within a minute or two on two cores.

    check_commands.py --root ROOT --launchlab PROGRAM --build BUILD [--list]
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NEEDS = {
    "gpu": "an NVIDIA GPU and its driver",
    "driver-tools": "cuobjdump, nvdisasm, ncu or compute-sanitizer (the toolkit's full install)",
    "docker": "Docker",
    "slurm": "a Slurm cluster",
    "network": "the network",
    "matplotlib": "Debian's python3-matplotlib",
    "solved": "the lab solved (the inspect tools are built from the learner's code)",
    "your-files": "files the reader makes or names (a submission, a class, a program)",
    "terminal": "a terminal: it asks the reader first",
    "root": "root, and it changes the machine (it adds users, say)",
    "long": "minutes: it grades the whole course, builds everything, or runs until stopped",
}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(console|sh|shell)\s*$")
NEEDS_MARK = re.compile(r"needs:\s*([a-z-]+(?:\s*,\s*[a-z-]+)*)")
FAILS_MARK = "fails on purpose"
COMMAND_SECONDS = 90


class Command:
    def __init__(self, page, line, text, needs, fails):
        self.page, self.line, self.text, self.needs, self.fails = page, line, text, needs, fails

    def where(self):
        return f"{self.page}:{self.line}"


def trailing_comment(line):
    """The comment that ends a shell line ("" when none), quotes respected."""
    quote = None
    for at, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1].isspace()):
            return line[at:]
    return ""


def blocks_of(page, root, problems):
    """The commands of each block of a page, block by block."""
    lines = (root / page).read_text(encoding="utf-8").split("\n")
    blocks = []
    index = 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        index += 1
        if not opened:
            continue
        indent, fence, kind = opened.groups()
        commands, current, start = [], None, 0
        while index < len(lines) and not lines[index].strip().startswith(fence):
            # A block inside a list item is indented as its fence is.
            line = lines[index][len(indent):] if lines[index].startswith(indent) else lines[index]
            index += 1
            if current is not None:
                current.append(line)
            elif kind == "console" and line.startswith("$ "):
                current, start = [line[2:]], index
            elif kind != "console" and line.strip() and not line.lstrip().startswith("#"):
                current, start = [line], index
            else:
                continue
            if current[-1].rstrip().endswith(("\\", "|", "&&")):
                continue
            comment = trailing_comment(current[-1])
            marked = NEEDS_MARK.search(comment)
            needs = [word.strip() for word in marked.group(1).split(",")] if marked else []
            for word in needs:
                if word not in NEEDS:
                    problems.append(f"{page}:{start}: unknown need '{word}' (known: {', '.join(NEEDS)})")
            commands.append(Command(page, start, "\n".join(current), needs, FAILS_MARK in comment))
            current = None
        index += 1
        if commands:
            blocks.append(commands)
    return blocks


def words_of(command):
    """The command's words before any pipe, `&&` or `;`, comments dropped."""
    lexer = shlex.shlex(command.replace("\\\n", " "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = []
    for word in lexer:
        if word in ("|", "||", "&&", ";", ">", "<", ">>", "2>", "&"):
            break
        words.append(word)
    return words


class Launchlab:
    """The launchlab program's own help, asked once per subcommand."""

    def __init__(self, program, environment):
        self.program, self.environment, self.helps = program, environment, {}

    def help(self, subcommand):
        if subcommand not in self.helps:
            done = subprocess.run([self.program, *([subcommand] if subcommand else []), "--help"],
                                  env=self.environment, capture_output=True, text=True, timeout=60)
            self.helps[subcommand] = (done.returncode, done.stdout + done.stderr)
        return self.helps[subcommand]

    def syntax_problem(self, words):
        """Why these words are no launchlab command line ("" when they are one)."""
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
            words = words[1:]  # VARIABLE=value before the program
        arguments = words[1:]
        if not arguments:
            return "no subcommand"
        subcommand = arguments[0]
        if subcommand in ("trace", "inspect"):
            status, text = self.help("")
            listed = re.search(rf"^\s+{re.escape(subcommand)}\s", text, re.MULTILINE)
            return "" if listed else f"`launchlab --help` names no subcommand {subcommand}"
        status, text = self.help(subcommand)
        if status != 0:
            return f"`launchlab {subcommand} --help` fails: {text.strip()[-300:]}"
        for word in arguments[1:]:
            if word == "--":
                break
            if word.startswith("--"):
                option = word.split("=", 1)[0]
                if not re.search(rf"(^|[\s,\[]){re.escape(option)}\b", text):
                    return f"`launchlab {subcommand} --help` names no option {option}"
        return ""


def course_file_problem(words, root):
    """For a command that runs a file of the course: why it is not there."""
    while words and (re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]) or words[0] in ("bash", "sh", "/usr/bin/python3", "python3")):
        words = words[1:]
    if words and "/" in words[0] and not words[0].startswith(("/", "./", "build/")):
        if not (root / words[0]).exists():
            return f"{words[0]} is not a file of the course"
    return ""


def copy_course(root, into):
    """The course without its build trees, git and learner progress."""
    skip = {".git", "build", ".launchlab-progress", ".cache", ".carry"}
    for entry in root.iterdir():
        if entry.name in skip or entry.name.startswith("build-"):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, into / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, into / entry.name, follow_symlinks=False)


def without_comment(command):
    lines = command.text.split("\n")
    return "\n".join(lines[:-1] + [lines[-1][:len(lines[-1]) - len(trailing_comment(lines[-1]))].rstrip()])


def packaged_tools(root):
    """The commands packages.txt names (`command:NAME`), by name: the Debian
    package that brings each."""
    tools = {}
    for line in (root / "packages.txt").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) == 3 and not line.startswith("#") and fields[2].startswith("command:"):
            tools[fields[2][len("command:"):]] = fields[1]
    return tools


def missing_tools(command, tools):
    """The tools of packages.txt a command runs that are not installed here
    (a GPU host without a package manager may lack xxd): the command cannot
    run, which is no fault of the page."""
    programs = re.findall(r"(?:^|[|;&]\s*|\$\()\s*([A-Za-z0-9_.+-]+)", without_comment(command))
    return sorted({f"{program} ({tools[program]})" for program in programs if program in tools and not shutil.which(program)})


def run_block(commands, course, environment, already_run, tools):
    """Runs a block's unmarked commands in order in one shell, in the copy of
    the course; the first that fails and why, or None. A command whose tools
    (packages.txt) are not installed here is left out and said."""
    for command in commands:
        missing = [] if command.needs else missing_tools(command, tools)
        if missing:
            print(f"  {command.where()}: not run, {', '.join(missing)} not installed here")
            command.needs = ["not-installed"]
    runnable = [command for command in commands if not command.needs and without_comment(command) not in already_run]
    already_run.update(without_comment(command) for command in runnable)
    if not runnable:
        return None
    script = [f"cd {shlex.quote(str(course))}"]
    for number, command in enumerate(runnable):
        failed = "[ $status -eq 0 ]" if command.fails else "[ $status -ne 0 ]"
        script += [f"echo '@@ {number}' >&2", command.text,
                   f"status=$?; if {failed}; then echo \"@@ exit status $status\" >&2; exit 1; fi"]
    started = time.monotonic()
    try:
        done = subprocess.run(["bash", "-c", "\n".join(script)], env=environment, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=COMMAND_SECONDS * len(runnable))
        output, status = done.stdout, done.returncode
    except subprocess.TimeoutExpired as stopped:
        output, status = (stopped.output or b"").decode(errors="replace") if isinstance(stopped.output, bytes) else (stopped.output or ""), None
    print(f"  {runnable[0].where()}: {len(runnable)} command(s) in {time.monotonic() - started:.1f} s")
    if status == 0:
        return None
    reached = [int(number) for number in re.findall(r"^@@ (\d+)$", output, re.MULTILINE)]
    culprit = runnable[reached[-1] if reached else 0]
    if status is None:
        return culprit, f"the block ran longer than {COMMAND_SECONDS * len(runnable)} s"
    said = output.rsplit(f"@@ {reached[-1]}\n", 1)[-1] if reached else output
    return culprit, said.strip()[-1500:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="the course's root")
    parser.add_argument("--launchlab", required=True, help="the launchlab program, built")
    parser.add_argument("--build", type=Path, required=True, help="the build folder it was built in")
    parser.add_argument("--list", action="store_true", help="list the commands and their needs, run nothing")
    args = parser.parse_args()
    root = args.root.resolve()
    args.launchlab = os.path.abspath(args.launchlab)

    student_edition = (root / "expectations" / "expectations.json").is_file()
    pages = [] if student_edition else [Path("README.md")]
    pages += sorted(p.relative_to(root) for p in (root / "docs").glob("*.md"))
    pages += sorted(p.relative_to(root) for p in (root / "chapters").glob("**/*.md"))
    problems = []
    blocks = [block for page in pages for block in blocks_of(str(page), root, problems)]
    commands = [command for block in blocks for command in block]
    if args.list:
        for command in commands:
            print(f"{command.where()}: [{', '.join(command.needs) or 'runs'}] {command.text.splitlines()[0]}")
        return 0

    with tempfile.TemporaryDirectory(prefix="launchlab-doc-commands-") as scratch:
        course = Path(scratch) / "course"
        course.mkdir()
        copy_course(root, course)
        environment = dict(os.environ, LAUNCHLAB_ROOT=str(course), LAUNCHLAB_BUILD_DIR=str(args.build.resolve()))
        wrapper = course / "launchlab"
        wrapper.write_text(f"#!/bin/sh\nexec {shlex.quote(args.launchlab)} \"$@\"\n")
        wrapper.chmod(0o755)

        launchlab = Launchlab(args.launchlab, environment)
        for command in commands:
            words = words_of(command.text)
            program = next((word for word in words if not re.match(r"^[A-Z_][A-Z0-9_]*=", word)), "")
            if program == "./launchlab":
                if problem := launchlab.syntax_problem(words):
                    problems.append(f"{command.where()}: {problem}: {command.text}")
            elif command.needs:
                if problem := course_file_problem(words, root):
                    problems.append(f"{command.where()}: {problem}: {command.text}")

        already_run = set()
        tools = packaged_tools(root)
        for block in blocks:
            page_folder = root / block[0].page
            if block[0].page.startswith("chapters/"):
                for entry in page_folder.parent.iterdir():
                    if entry.is_file() and entry.suffix != ".md" and not (course / entry.name).exists():
                        shutil.copy2(entry, course / entry.name)
            failed = run_block(block, course, environment, already_run, tools)
            if failed:
                command, why = failed
                problems.append(f"{command.where()}: `{command.text}` failed ({why}); mark what it needs "
                                f"(`# needs: WORD`, docs/authoring.md) if it cannot run here")

    ran = sum(1 for command in commands if not command.needs)
    print(f"{len(commands)} commands in {len(pages)} pages: {ran} run, {len(commands) - ran} marked as needing more "
          f"(their syntax checked where they are launchlab's)")
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
