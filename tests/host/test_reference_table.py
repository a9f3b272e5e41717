"""docs/d-language.md's "The D reference, row by row" against the code.

The checklist is only worth something while it is true.  From the sources
(no build, no guest) this checks that:
  - every built-in variable (DIF_VARS), subroutine (DIF_SUBRS), D action
    (compiler/lower.c's d_actions[]), aggregating function (XDT_AGGFUNCS),
    option (libxdt's options[]) and error tag (DT_ERRTAGS) has a row in
    its chapter;
  - a row that says `yes` names only what those tables have: an action
    with a lowering, an option libxdt acts on, a tag the compiler raises;
  - every row is marked yes, partial or no, and a partial or no one says
    why;
  - every "tested by" path exists (`path::test_name`: and defines that
    test; `conf:F/T.d`: the illumos suite under ../shared/conformance,
    checked when that folder is there).
"""
import glob
import os
import re

import pytest

import xdtvm

pytestmark = pytest.mark.host

TOP = xdtvm.TOP
DOC = os.path.join(TOP, "docs", "d-language.md")
CONF = os.path.join(TOP, "..", "shared", "conformance", "illumos", "tst", "common")
SECTION = "## The D reference, row by row"
IMPL = ("yes", "partial", "no")

# chapter heading -> which of the code's tables its rows name
CHAPTERS = {
    "Built-in variables": "vars",
    "Subroutines": "subrs",
    "Actions": "actions",
    "Aggregating functions": "aggs",
    "Options and tunables": "options",
    "Errors and error tags": "errtags",
}


def _read(*path):
    with open(os.path.join(TOP, *path)) as f:
        return f.read()


def _nocomments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def _macro(text, name):
    """The body of `#define name(X) ...` with its continuation lines."""
    m = re.search(r"#define %s\(X\)((?:.*\\\n)*.*)" % name, text)
    assert m, f"#define {name} not found"
    return m.group(1)


def code_tables():
    dif = _nocomments(_read("core", "uapi", "dif.h"))
    xdt = _nocomments(_read("core", "uapi", "xdt.h"))
    lower = _nocomments(_read("compiler", "lower.c"))
    opts = _nocomments(_read("libxdt", "libxdt.c"))
    prog = _nocomments(_read("compiler", "dt_program.h"))
    t = {}
    t["vars"] = set(re.findall(r'X\(\w+,\s*"(\w+)"', _macro(dif, "DIF_VARS")))
    t["subrs"] = set(re.findall(r'X\(\w+,\s*\d+,\s*"(\w+)"', _macro(dif, "DIF_SUBRS")))
    t["aggs"] = set(re.findall(r'X\(\w+,\s*\d+,\s*"(\w+)"', _macro(xdt, "XDT_AGGFUNCS")))
    table = re.search(r"d_actions\[\] = \{(.*?)\n\};", lower, re.S).group(1)
    acts = re.findall(r'\{ "(\w+)",.*?, (\w+) \},', table)
    t["actions"] = {n for n, _ in acts}
    table = re.search(r"\} options\[\] = \{(.*?)\n\};", opts, re.S).group(1)
    o = re.findall(r'\{ "(\w+)", OPT_\w+, ([01]) \}', table)
    t["options"] = {n for n, _ in o}
    t["errtags"] = set(re.findall(r"X\((D_\w+)\)", _macro(prog, "DT_ERRTAGS")))
    # what may be "yes": the name is there and works
    src = "".join(_read(os.path.relpath(f, TOP)) for f in
                  glob.glob(os.path.join(TOP, "compiler", "*.c")) +
                  glob.glob(os.path.join(TOP, "libxdt", "*.c")))
    dlib = "".join(_read(os.path.relpath(f, TOP)) for f in
                   glob.glob(os.path.join(TOP, "dlib", "*.d")))
    y = {}
    # args[], uregs[], self, this: the compiler's own names (sema.c);
    # curpsinfo & co.: inlines of the D library (fds[]: an inline array)
    y["vars"] = t["vars"] | {"args", "uregs", "self", "this"} | set(
        re.findall(r"^inline\s+[\w\s]+?\**\s*(\w+)\s*(?:\[[^\]]*\])?\s*=", dlib, re.M))
    # alloca is an operator of the compiler's (sema.c), not a CALL
    y["subrs"] = t["subrs"] | {"alloca"}
    y["aggs"] = t["aggs"]
    y["actions"] = {n for n, fn in acts if fn != "NULL"}
    y["options"] = {n for n, imp in o if imp == "1"}
    y["errtags"] = {g for g in t["errtags"] if re.search(r"\bDT_%s\b" % g, src)}
    return t, y


def _cells(line):
    """A table row's cells; `\\|` is a pipe inside a cell."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip().replace("\\|", "|") for c in parts[1:-1]]


def doc_rows():
    """(chapter, first cell, impl, tested by, differs, line number)."""
    with open(DOC) as f:
        lines = f.read().split("\n")
    assert SECTION in lines, f"{DOC}: no '{SECTION}' section"
    rows, chapter = [], None
    for i, line in enumerate(lines[lines.index(SECTION) + 1:],
                             start=lines.index(SECTION) + 2):
        if line.startswith("## "):
            break
        if line.startswith("### "):
            chapter = line[4:].strip()
            continue
        if not line.startswith("|") or re.match(r"^\|[-| ]+\|$", line):
            continue
        c = _cells(line)
        if c and c[0] == "construct":
            continue
        assert len(c) == 4, f"d-language.md:{i}: want 4 cells, got {len(c)}: {line}"
        rows.append((chapter, c[0], c[1], c[2], c[3], i))
    return rows


def _names(cell, kind=None):
    """The names a first cell gives: each `name`, less (), [] and `@`.  An
    option's row is "`name`" or "`name` (kind)"; the chapter's other rows
    (value syntax) name no option."""
    if kind == "options":
        m = re.fullmatch(r"`([a-z]+)`( \(\w+\))?", cell)
        return {m.group(1)} if m else set()
    return {re.sub(r"[(\[].*$", "", n).lstrip("@")
            for n in re.findall(r"`([^`]+)`", cell)}


def test_every_row_is_marked_and_says_why():
    rows = doc_rows()
    assert len(rows) > 300, "the checklist lost most of its rows"
    bad = [f"line {ln}: {first}: impl '{impl}'" for _, first, impl, _, _, ln in rows
           if impl not in IMPL]
    bad += [f"line {ln}: {first}: {impl} but no reason"
            for _, first, impl, _, why, ln in rows if impl != "yes" and not why]
    bad += [f"line {ln}: {first}: tested by is empty"
            for _, first, _, tested, _, ln in rows if not tested]
    assert not bad, "\n".join(bad)


def test_code_tables_have_rows_and_yes_is_true():
    t, y = code_tables()
    rows = doc_rows()
    missing, false_yes = [], []
    for chapter, kind in CHAPTERS.items():
        mine = [r for r in rows if r[0] == chapter]
        assert mine, f"no '### {chapter}' table"
        named = set().union(*(_names(r[1], kind) for r in mine))
        missing += [f"{chapter}: {n}" for n in sorted(t[kind] - named)]
        for _, first, impl, _, _, ln in mine:
            if impl != "yes":
                continue
            names = _names(first, kind)
            false_yes += [f"line {ln}: {chapter}: {n} says yes" for n in sorted(names)
                          if n not in y[kind]]
    assert not (missing or false_yes), (
        "no row for:\n" + "\n".join(missing) +
        "\n'yes' for what the code's tables lack (or do not implement, or "
        "never raise):\n" + "\n".join(false_yes))


def test_tested_by_paths_exist():
    bad = []
    for _, first, _, tested, _, ln in doc_rows():
        if tested == "none":
            continue
        for ref in (p.strip() for p in tested.split(",")):
            if ref.startswith("conf:"):
                if os.path.isdir(CONF) and not os.path.isfile(os.path.join(CONF, ref[5:])):
                    bad.append(f"line {ln}: {first}: {ref}")
                continue
            path, _, func = ref.partition("::")
            full = os.path.join(TOP, path)
            if not os.path.isfile(full):
                bad.append(f"line {ln}: {first}: {ref} (no such file)")
            elif func and not re.search(r"^def %s\(" % re.escape(func),
                                        _read(path), re.M):
                bad.append(f"line {ln}: {first}: {ref} (no such test)")
    assert not bad, "tested-by paths that do not exist:\n" + "\n".join(bad)
