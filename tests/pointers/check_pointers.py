#!/usr/bin/env python3
"""Owns the check that every pointer into the repository resolves (the ctests of tests/CMakeLists.txt).

Reads the Markdown files and the comments of the source trees under ROOT and prints, one a line,
each reference that names nothing: a Markdown link to a file that does not exist or to an anchor no
heading of its target makes (GitHub's slugs), a mention of a repository path (docs/*.md, src/...,
include/..., tests/...) that does not exist, and any citation of the design document the
repository never had (every rule lives in a file of docs/). Exits 1 if it printed any.
"""

import os
import re
import sys
from fnmatch import fnmatch
from glob import glob

# Folders whose Markdown and comments are read, and the top-level files read besides.
TREES = ("docs", "src", "include", "python", "java/src", "bench", "fuzz", "scripts", "cmake", "mk", "tests")
TOP_FILES = ("README.md", "CMakeLists.txt", "Makefile")
# Fixture trees that hold wrong pointers on purpose (tests/CMakeLists.txt runs checks on them).
FIXTURES = ("tests/pointers/broken", "tests/layering/points_up")
SKIPPED_DIRS = {"__pycache__", "target", "build", "dist", ".venv"}

SLASH_COMMENTS = {".c", ".h", ".cpp", ".hpp", ".java"}
HASH_COMMENTS = {".py", ".cmake", ".sh", ".mk", ".toml"}
HASH_COMMENT_NAMES = {"CMakeLists.txt", "Makefile"}

# A path of the repository: a top folder, then path characters (a glob's * included).
PATH_MENTION = re.compile(
    r"(?<![\w/.\-])((?:docs|src|include|tests|bench|scripts|python|java|fuzz|cmake|mk)/[\w./*+\-]*)(#[\w\-]+)?")
MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
MARKDOWN_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
DESIGN_CITATION = re.compile(r"\bDESIGN(?:\.md|\s*§)")
# A component in capitals stands for a name (fuzz/campaigns/NAME.tsv), unless it is one of these.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(\.\w+)?$")
CAPITALISED_FILES = {"README.md", "CMakeLists.txt"}
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def github_slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text, not its target
    text = text.lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "_- ")
    return text.replace(" ", "-")


def markdown_lines(text):
    """(line number, line, inside a fenced code block) for each line of a Markdown text."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            yield number, line, True
            continue
        yield number, line, fenced


def anchors_of(path, cache):
    """The anchors of the headings of the Markdown file at path (duplicates numbered as GitHub does)."""
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        anchors, seen = set(), {}
        for _, line, fenced in markdown_lines(text):
            match = None if fenced else HEADING.match(line)
            if match:
                slug = github_slug(match.group(1))
                count = seen.get(slug, 0)
                seen[slug] = count + 1
                anchors.add(slug if count == 0 else f"{slug}-{count}")
        cache[path] = anchors
    return cache[path]


# The tokens of C, C++ and Java source that can hold "//" or "/*" without starting a comment: the
# comments themselves, Java text blocks, raw strings, strings and character literals (a quote after
# a letter or digit is a digit separator, 1'000).
SLASH_TOKEN = re.compile(r"""//[^\n]*|/\*.*?(?:\*/|$)|\"\"\".*?(?:\"\"\"|$)|(?<!\w)R"([^(\s]*)\(.*?(?:\)\1"|$)"""
                         r"""|"(?:\\.|[^"\\\n])*"?|(?<!\w)'(?:\\.|[^'\\\n])*'?""", re.DOTALL)


def slash_comments(text):
    """(line number, text) of each // and /* */ comment of C, C++ or Java source, strings skipped."""
    line, at = 1, 0
    for token in SLASH_TOKEN.finditer(text):
        if token.group(0).startswith(("//", "/*")):
            line += text.count("\n", at, token.start())
            at = token.start()
            yield line, token.group(0)


def hash_comments(text, suffix):
    """(line number, text) of each # comment (and Python docstring) of a script, strings skipped."""
    quotes = "" if suffix == "make" else ("'\"" if suffix != ".cmake" else '"')
    i, line, n = 0, 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch == "#" and (suffix == ".py" or i == 0 or text[i - 1].isspace()):
            end = text.find("\n", i)
            end = n if end < 0 else end
            yield line, text[i:end]
            i = end
        elif suffix == ".py" and (text.startswith('"""', i) or text.startswith("'''", i)):
            end = text.find(text[i:i + 3], i + 3)
            end = n if end < 0 else end + 3
            yield line, text[i:end]
            line += text.count("\n", i, end)
            i = end
        elif ch in quotes and quotes:
            j = i + 1
            while j < n and text[j] != ch and (text[j] != "\n" or suffix == ".cmake"):
                j += 2 if text[j] == "\\" else 1
            line += text.count("\n", i, j)
            i = j + 1 if j < n and text[j] == ch else j
        else:
            i += 1


class Checker:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.anchor_cache = {}
        self.problems = []
        # Folders the build writes (the root .gitignore's /FOLDER/ lines): their files are outputs.
        self.outputs = []
        ignore = os.path.join(self.root, ".gitignore")
        if os.path.isfile(ignore):
            with open(ignore, encoding="utf-8") as f:
                self.outputs = [line.strip()[1:-1] for line in f if re.match(r"^/.+/$", line.strip())]

    def is_output(self, path):
        parts = path.split("/")
        return any(fnmatch("/".join(parts[:pattern.count("/") + 1]), pattern) for pattern in self.outputs)

    def report(self, relative, line, message):
        self.problems.append(f"{relative}:{line}: {message}")

    def check_anchor(self, relative, line, shown, target, anchor):
        if anchor and target.endswith(".md") and os.path.isfile(target):
            if anchor not in anchors_of(target, self.anchor_cache):
                name = os.path.relpath(target, self.root)
                self.report(relative, line, f"{shown}: no heading of {name} has the anchor #{anchor}")

    def check_mentions(self, relative, line, text):
        for match in PATH_MENTION.finditer(text):
            path, anchor = match.group(1).rstrip(".-:"), match.group(2)
            following = text[match.end(1):match.end(1) + 1]
            if following and following in "<{$%@":  # a placeholder: only its folder is a real path
                path = path[:path.rfind("/") + 1]
            parts = path.split("/")
            for k, part in enumerate(parts):
                if PLACEHOLDER.match(part) and part not in CAPITALISED_FILES:
                    path = "/".join(parts[:k]) + "/"
                    break
            if self.is_output(path):
                continue
            full = os.path.join(self.root, path)
            exists = bool(glob(full)) if "*" in path else os.path.exists(full)
            if not exists:
                self.report(relative, line, f"{path} does not exist")
            elif anchor:
                self.check_anchor(relative, line, path + anchor, full, anchor[1:])

    def check_design(self, relative, text):
        for number, line in enumerate(text.splitlines(), 1):
            for match in DESIGN_CITATION.finditer(line):
                self.report(relative, number, f"{match.group(0)}: the repository has no such document; "
                            "cite the file of docs/ that holds the rule")

    def check_markdown(self, relative, text):
        here = os.path.dirname(os.path.join(self.root, relative))
        for number, line, fenced in markdown_lines(text):
            if fenced:
                self.check_mentions(relative, number, line)
                continue
            # A link's target is checked as a link (relative to this file), not again as a mention.
            self.check_mentions(relative, number, MARKDOWN_REFERENCE.sub("", MARKDOWN_LINK.sub("]", line)))
            targets = MARKDOWN_LINK.findall(line) + MARKDOWN_REFERENCE.findall(line)
            for link in targets:
                if re.match(r"^[a-z][a-z0-9+.\-]*:", link):  # https:, mailto: and the like
                    continue
                target, _, anchor = link.partition("#")
                full = os.path.normpath(os.path.join(here, target)) if target else os.path.join(self.root, relative)
                if not os.path.exists(full):
                    self.report(relative, number, f"({link}): {target} does not exist")
                else:
                    self.check_anchor(relative, number, f"({link})", full, anchor)

    def check_file(self, relative):
        with open(os.path.join(self.root, relative), encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.check_design(relative, text)
        name = os.path.basename(relative)
        suffix = os.path.splitext(name)[1]
        if suffix == ".md":
            self.check_markdown(relative, text)
            return
        if suffix in SLASH_COMMENTS:
            comments = slash_comments(text)
        else:
            comments = hash_comments(text, "make" if name == "Makefile" or suffix == ".mk" else suffix)
        for line, comment in comments:
            for offset, comment_line in enumerate(comment.split("\n")):
                self.check_mentions(relative, line + offset, comment_line)

    def files(self):
        for name in TOP_FILES:
            if os.path.isfile(os.path.join(self.root, name)):
                yield name
        for tree in TREES:
            for folder, dirs, names in os.walk(os.path.join(self.root, tree)):
                relative_folder = os.path.relpath(folder, self.root)
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")
                                 and os.path.join(relative_folder, d) not in FIXTURES)
                for name in sorted(names):
                    suffix = os.path.splitext(name)[1]
                    if suffix in SLASH_COMMENTS or suffix in HASH_COMMENTS or suffix == ".md" or name in HASH_COMMENT_NAMES:
                        yield os.path.join(relative_folder, name)

    def run(self):
        for relative in self.files():
            self.check_file(relative)
        for problem in self.problems:
            print(problem)
        if self.problems:
            print(f"{len(self.problems)} pointers name nothing in {self.root}")
        return 1 if self.problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_pointers.py ROOT")
    sys.exit(Checker(sys.argv[1]).run())
