"""Sphinx configuration of the launchlab course site.

The source directory is the repository root and this folder is only the
configuration folder (``sphinx-build -c docs <root> <out>``), so that a page
can ``literalinclude`` the real files of the course by relative path
(``../../labs/00_vadd_journey/grid.h``) or by root-relative path
(``/labs/00_vadd_journey/grid.h``).

Build it with the CMake target ``docs`` (docs/CMakeLists.txt): it runs
Doxygen on the lab headers first and points Breathe at the XML through the
environment variable LAUNCHLAB_DOXYGEN_XML, and hands over the chapter table
the course model made from every lab.toml through LAUNCHLAB_CHAPTER_TABLE.
"""

import html
import os
import re
import subprocess
from pathlib import Path

from sphinx.errors import ConfigError

# -- Project ------------------------------------------------------------------

# conf.py lives in docs/, one folder below the course's root.
ROOT = Path(__file__).resolve().parent.parent

project = "launchlab"
author = "the launchlab authors"
copyright = "the launchlab authors"

# -- Which files are pages ----------------------------------------------------

root_doc = "docs/index"
source_suffix = {".md": "markdown"}

# Only these are pages; everything else in the repository is source code
# that pages may include but that Sphinx must not read as documents.
include_patterns = [
    "docs/index.md",
    "docs/authoring.md",
    "docs/instructors.md",
    "chapters/**/*.md",
]
# Folders Sphinx need not walk into while looking for pages (it walks the
# whole source directory otherwise, build trees included).
exclude_patterns = [
    ".*",
    "build",
    "build-*",
    "_build",
    "autograder",
    "cmake",
    "docker",
    "labs",
    "solutions",
    "docs/_static",
]

# -- Languages ----------------------------------------------------------------
#
# The site is written in English. Its translations are gettext catalogues,
# one per page and language, in docs/locale/<language>/LC_MESSAGES/ (kept
# with sphinx-intl: docs/authoring.md, "Translations"); an edition is the
# same build with `-D language=<language>`. Each edition is written below
# the English one, in <html>/<language>/, and every page links to itself in
# the others (the sidebar's language switch).

EDITIONS = {"en": "English", "pt_BR": "Português (Brasil)", "zh_CN": "简体中文"}
locale_dirs = ["docs/locale/"]
gettext_compact = False
gettext_uuid = False
gettext_location = False
# A catalogue entry whose English has changed since it was translated is
# fuzzy; the site shows the English until a translator confirms it.
gettext_allow_fuzzy_translations = False

# -- Extensions ---------------------------------------------------------------

extensions = [
    "myst_parser",
    "breathe",
    "sphinx.ext.mathjax",
    "sphinx_copybutton",
]

# A copy button on every listing; it leaves out a console block's "$ "
# prompts and what a command printed, so that what is copied can be pasted
# into a shell as it is.
copybutton_prompt_text = "$ "
copybutton_only_copy_prompt_lines = True
copybutton_line_continuation_character = "\\"

myst_enable_extensions = [
    "colon_fence",  # ::: fences for admonitions and figures
    "deflist",
    "dollarmath",  # $...$ and $$...$$
    "fieldlist",
]
# Headings up to ### get anchors, so [text](#the-parameter-buffer) and
# [text](../04_param_buffer/index.md#the-layout) work.
myst_heading_anchors = 3

# -- Breathe: the lab headers through Doxygen's XML ---------------------------

_doxygen_xml = os.environ.get("LAUNCHLAB_DOXYGEN_XML", "")
if not _doxygen_xml or not (Path(_doxygen_xml) / "index.xml").is_file():
    raise ConfigError(
        "launchlab: no Doxygen XML of the lab headers "
        f"(LAUNCHLAB_DOXYGEN_XML={_doxygen_xml!r}). Build the docs through CMake: "
        "cmake --build <build-dir> --target docs"
    )
breathe_projects = {"launchlab": _doxygen_xml}
breathe_default_project = "launchlab"
breathe_default_members = ("members",)
breathe_domain_by_extension = {"h": "cpp", "cuh": "cpp"}
breathe_show_include = True

# CUDA's qualifiers, as they appear in the headers' signatures.
cpp_id_attributes = [
    "__global__",
    "__device__",
    "__host__",
    "__forceinline__",
    "__noinline__",
    "__constant__",
    "__shared__",
    "__managed__",
    "__restrict__",
    "__grid_constant__",
]
cpp_paren_attributes = [
    "__launch_bounds__",
    "__align__",
    "__cluster_dims__",
]

# -- The chapter table -------------------------------------------------------
#
# The home page's table of chapters is not written by hand: the course model
# makes it from every lab.toml when the course is configured, and it takes
# the place of this line of docs/index.md.

CHAPTER_TABLE_LINE = "% The chapter table, made from every lab.toml, goes here."

_chapter_table = os.environ.get("LAUNCHLAB_CHAPTER_TABLE", "")
if not _chapter_table or not Path(_chapter_table).is_file():
    raise ConfigError(
        "launchlab: no chapter table from the course model "
        f"(LAUNCHLAB_CHAPTER_TABLE={_chapter_table!r}). Build the docs through CMake: "
        "cmake --build <build-dir> --target docs"
    )


def _put_chapter_table(app, docname, source):
    if docname != app.config.root_doc:
        return
    if CHAPTER_TABLE_LINE not in source[0]:
        raise ConfigError(f"launchlab: {docname}.md lacks the line {CHAPTER_TABLE_LINE!r}")
    table = Path(_chapter_table).read_text(encoding="utf-8")
    source[0] = source[0].replace(CHAPTER_TABLE_LINE, table.rstrip("\n"))


# -- HTML ---------------------------------------------------------------------

# Where the course's sources are published: every page's "edit this page"
# link points into it. It is the clone's own `origin` on a web host (a fork
# or a tree made with `launchlab export-student` gets its own links), or
# LAUNCHLAB_REPOSITORY (and LAUNCHLAB_REPOSITORY_BRANCH) when the site is
# built from a copy without one. A course with neither has no edit links
# rather than links into a repository it does not know.
def _published_repository():
    named = os.environ.get("LAUNCHLAB_REPOSITORY", "")
    if named:
        return named
    try:
        origin = subprocess.run(["git", "-C", str(ROOT), "config", "--get", "remote.origin.url"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    # git@host:owner/name.git and https://host/owner/name.git both become
    # https://host/owner/name; a local path is not a web page.
    ssh = re.fullmatch(r"[\w.-]+@([\w.-]+):(.+?)(\.git)?", origin)
    if ssh:
        return f"https://{ssh.group(1)}/{ssh.group(2)}"
    web = re.fullmatch(r"(https://.+?)(\.git)?", origin)
    return web.group(1) if web else ""


SOURCE_REPOSITORY = _published_repository()
SOURCE_BRANCH = os.environ.get("LAUNCHLAB_REPOSITORY_BRANCH", "main")

html_theme = "furo"
html_theme_options = {}
if SOURCE_REPOSITORY:
    # The source directory is the repository root, so a page's name is its
    # path in the repository.
    html_theme_options.update({
        "source_repository": SOURCE_REPOSITORY.rstrip("/") + "/",
        "source_branch": SOURCE_BRANCH,
        "source_directory": "",
    })
html_title = "launchlab"
templates_path = ["_templates"]
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "languages.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}
html_static_path = ["_static"]
html_css_files = ["launchlab.css"]
html_copy_source = False
html_show_sourcelink = False

# Code is C++ unless a block says otherwise.
highlight_language = "cpp"


# -- The site's front door -----------------------------------------------------
#
# The home page is docs/index, so Sphinx writes it to docs/index.html. An
# index.html at the top of the output sends a visitor (or a browser opened on
# the output folder) there.


def _write_front_door(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = app.builder.get_target_uri(app.config.root_doc)
    front = Path(app.outdir) / "index.html"
    if not target or target == "index.html":
        return
    url = html.escape(target, quote=True)
    front.write_text(
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f"<title>{html.escape(project)}</title>\n"
        f'<meta http-equiv="refresh" content="0; url={url}">\n'
        f'<link rel="canonical" href="{url}">\n'
        "</head><body>\n"
        f'<p>The course starts at <a href="{url}">{url}</a>.</p>\n'
        "</body></html>\n",
        encoding="utf-8",
    )


# -- Debian's furo, made to work from any folder -------------------------------
#
# Debian unbundles furo's assets: its furo.css imports normalize.css from
# /javascript/ (where Debian's web server setup serves /usr/share/javascript),
# and its furo.js is the ES module source, which imports Gumshoe and fails as
# the classic script the page loads it as. Both break a site opened from its
# folder or published anywhere else (the browser check, docs/check_site.py,
# sees the failed load and the SyntaxError on every page). The output gets
# the two files whole; upstream furo's bundled files are left as they are.

DEBIAN_JAVASCRIPT = Path("/usr/share/javascript")


def _bundle_debian_furo(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    css = static / "styles" / "furo.css"
    prefix = "@import url(/javascript/"
    if css.is_file() and css.read_text(encoding="utf-8").startswith(prefix):
        text = css.read_text(encoding="utf-8")
        imported = text[len(prefix) : text.index(")")]
        (css.parent / Path(imported).name).write_bytes((DEBIAN_JAVASCRIPT / imported).read_bytes())
        css.write_text(f"@import url({Path(imported).name}" + text[text.index(")") :], encoding="utf-8")
    js = static / "scripts" / "furo.js"
    gumshoe = static / "scripts" / "gumshoe-patched.js"
    module_import = 'import Gumshoe from "./gumshoe-patched.js";\n'
    if js.is_file() and gumshoe.is_file() and js.read_text(encoding="utf-8").startswith(module_import):
        # gumshoe-patched.js is a UMD script: run as a classic script, it
        # defines window.Gumshoe, which is what furo.js then uses.
        body = js.read_text(encoding="utf-8")[len(module_import) :]
        js.write_text(gumshoe.read_text(encoding="utf-8") + "\n" + body, encoding="utf-8")


# -- What stays English in every edition --------------------------------------
#
# The lab APIs' documentation is Breathe's rendering of the headers' Doxygen
# comments: it belongs to the code, which no edition translates. Its nodes
# are marked untranslatable before Sphinx's i18n transform (priority 20)
# runs, so they stay out of the catalogues and the translated editions show
# them as the headers say them. (Translated, a member's comment would also
# lose its cross-references: a catalogue's text is parsed as Markdown alone.)

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform


class KeepApiDocumentationInEnglish(SphinxTransform):
    default_priority = 10

    def apply(self, **kwargs):
        for description in self.document.findall(addnodes.desc):
            for node in description.findall(nodes.TextElement):
                node["translatable"] = False


# -- The language switch -----------------------------------------------------


def _put_editions(app, pagename, templatename, context, doctree):
    """Links from a page to the same page in every edition of the site.

    The English edition is the output folder's top, each other edition a
    folder below it named by its language: a page at depth d climbs d
    folders to its edition's top, and one more from a translation."""
    current = app.config.language or "en"
    climb = "../" * pagename.count("/")
    english_top = climb if current == "en" else climb + "../"
    context["launchlab_editions"] = [
        {
            "tag": tag.replace("_", "-"),
            "name": name,
            "current": tag == current,
            "url": english_top + ("" if tag == "en" else tag + "/") + pagename + ".html",
        }
        for tag, name in EDITIONS.items()
    ]


def setup(app):
    app.add_transform(KeepApiDocumentationInEnglish)
    app.connect("html-page-context", _put_editions)
    app.connect("source-read", _put_chapter_table)
    app.connect("build-finished", _write_front_door)
    app.connect("build-finished", _bundle_debian_furo)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
