#!/usr/bin/env python3
"""The inspect tools' help, kept in help.json so that `launchlab inspect help`
and `launchlab inspect TOOL --help` answer before the tools are built, and
whatever state the learner's labs are in.

The file is made from a built launchlab-inspect (the solutions' build of it,
launchlab_inspect_solution): its `help` and each tool's `--help`, as printed.

  help.py PROGRAM FILE --write   write FILE from PROGRAM's help
  help.py PROGRAM FILE --check   exit 1, saying how to write it again, when
                                 FILE is not what PROGRAM prints
"""
import json
import subprocess
import sys


def printed(program, *args):
    return subprocess.run([program, *args], capture_output=True, text=True, check=False).stdout


def help_of(program):
    listing = printed(program, "help")
    tools = {}
    in_tools = False
    for line in listing.splitlines():
        if line == "Tools:":
            in_tools = True
        elif in_tools and line.startswith("  "):
            name = line.split()[0]
            tools[name] = printed(program, name, "--help")
        elif in_tools:
            break
    if not tools:
        sys.exit(f"{program} lists no tools:\n{listing}")
    return {"list": listing, "tools": tools}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("--write", "--check"):
        sys.exit(__doc__)
    program, path, mode = sys.argv[1:]
    text = json.dumps(help_of(program), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if mode == "--write":
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return
    with open(path, encoding="utf-8") as kept:
        if kept.read() != text:
            sys.exit(f"{path} is not the inspect tools' help as they print it now: "
                     "write it again with `cmake --build BUILD --target inspect-help`")


if __name__ == "__main__":
    main()
