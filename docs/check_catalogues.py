#!/usr/bin/env python3
"""Checks the translations' catalogues against the English pages.

    python3 docs/check_catalogues.py --templates BUILD/docs/gettext --locale docs/locale [--complete]

The templates are the English pages as Sphinx's gettext builder writes them
(one .pot per page); each language folder of the locale folder holds one
catalogue per page (LC_MESSAGES/<page>.po, kept with sphinx-intl). For every
language it checks that

- each page has its catalogue, and the catalogue holds every English text of
  the page as it is now (otherwise: `cmake --build BUILD --target
  docs-catalogues`, then translate what it adds);
- each translated entry keeps every `code` span of the English as it is
  (code, commands, SASS, register and field names are never translated),
  and uses the language's word for every term of the glossary
  (docs/locale/glossary.toml) that its English uses.

It prints, per language, how many entries are translated, untranslated and
fuzzy (their English changed since), and exits 1 on any problem above; with
--complete PAGES, an untranslated or fuzzy entry of those pages is a problem
too (the course's CI asks it of the chapters and the home page: the guides
for authors and instructors may stay English).
"""

import argparse
import re
import sys
import tomllib
from pathlib import Path


def unquote(text):
    """A PO string literal's value: the text between the quotes, unescaped."""
    body = text.strip()[1:-1]
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    return re.sub(r'\\(.)', lambda m: escapes.get(m.group(1), m.group(1)), body)


def read_catalogue(path):
    """Every entry of a .po or .pot file but the header: (msgid, msgstr, fuzzy)."""
    entries, current, field, fuzzy = [], None, None, False

    def finish():
        if current is not None and current["msgid"]:
            entries.append((current["msgid"], current.get("msgstr", ""), current["fuzzy"]))

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#,"):
            fuzzy = "fuzzy" in line
        elif line.startswith("msgid "):
            finish()
            current, field = {"msgid": unquote(line[6:]), "fuzzy": fuzzy}, "msgid"
            fuzzy = False
        elif line.startswith("msgstr ") and current is not None:
            current["msgstr"], field = unquote(line[7:]), "msgstr"
        elif line.startswith('"') and current is not None and field:
            current[field] = current.get(field, "") + unquote(line)
        elif not line.strip():
            field = None
    finish()
    return entries


# A code span: between double backticks (which may hold single ones), or
# between single ones.
CODE_SPAN = re.compile(r"``.+?``|`[^`]+`")


def problems_of_entry(msgid, msgstr, glossary, language):
    problems = []
    for span in CODE_SPAN.findall(msgid):
        if span not in msgstr:
            problems.append(f"the code span {span} is not kept as it is")
    # A term inside code (a path, a name) is not the term: it stays as it is.
    prose = CODE_SPAN.sub(" ", msgid)
    for term, forms in glossary.items():
        # A language's word, or its forms (a plural that is not the singular
        # and a suffix: "canal", "canais").
        words = forms.get(language)
        words = [words] if isinstance(words, str) else words or []
        if not words or not re.search(rf"\b{re.escape(term)}(s|es)?\b", prose, re.IGNORECASE):
            continue
        if not any(word.lower() in msgstr.lower() for word in words):
            problems.append(f"the glossary's word for '{term}' is " + " or ".join(f"'{word}'" for word in words))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--templates", type=Path, required=True, help="the gettext builder's output (.pot files)")
    parser.add_argument("--locale", type=Path, required=True, help="docs/locale: one folder per language")
    parser.add_argument("--complete", nargs="*", metavar="PAGES", default=None,
                        help="fail on any untranslated or fuzzy entry of the pages below these folders or "
                             "files (chapters, docs/index: the course the editions must translate whole); "
                             "with no folder, of every page")
    options = parser.parse_args()

    templates = sorted(options.templates.rglob("*.pot"))
    if not templates:
        sys.exit(f"check_catalogues: no .pot files in {options.templates}: build the docs target first")
    glossary_file = options.locale / "glossary.toml"
    glossary = tomllib.loads(glossary_file.read_text(encoding="utf-8")).get("terms", {}) if glossary_file.is_file() else {}
    languages = sorted(p.name for p in options.locale.iterdir() if p.is_dir())

    problems = []
    for language in languages:
        translated = untranslated = fuzzy = 0
        owed = []  # pages that must be whole, with what they lack
        for template in templates:
            page = template.relative_to(options.templates).with_suffix(".po")
            page_untranslated = page_fuzzy = 0
            catalogue = options.locale / language / "LC_MESSAGES" / page
            if not catalogue.is_file():
                problems.append(f"{language}: {page} has no catalogue")
                continue
            entries = {msgid: (msgstr, is_fuzzy) for msgid, msgstr, is_fuzzy in read_catalogue(catalogue)}
            for msgid, _, _ in read_catalogue(template):
                if msgid not in entries:
                    problems.append(f"{language}/{page}: the English {msgid[:60]!r} has no entry: the catalogue is stale")
                    continue
                msgstr, is_fuzzy = entries[msgid]
                if is_fuzzy:
                    fuzzy += 1
                    page_fuzzy += 1
                elif not msgstr:
                    untranslated += 1
                    page_untranslated += 1
                else:
                    translated += 1
                    for problem in problems_of_entry(msgid, msgstr, glossary, language):
                        problems.append(f"{language}/{page}: {msgid[:50]!r}: {problem}")
            whole = options.complete is not None and (
                not options.complete or any(page.with_suffix("").as_posix().startswith(p) for p in options.complete))
            if whole and (page_untranslated or page_fuzzy):
                owed.append(f"{language}/{page}: {page_untranslated} untranslated and {page_fuzzy} fuzzy entries")
        print(f"{language}: {translated} entries translated, {untranslated} untranslated, {fuzzy} fuzzy")
        problems += owed
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
