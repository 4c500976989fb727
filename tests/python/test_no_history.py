"""The docs and the code's comments say what is; history belongs to git.

An issue number, a date, a revision or a word about a working session means something only to
whoever wrote it: a reader of the tree cannot follow it. This test scans the Markdown (README.md,
docs/, kernel-progress/, reports/) and the comments of the code (C++ `//` and `/* */`; Python `#`
comments and docstrings; shell, CMake, TOML and requirements `#` comments) for them and names each
hit as file:line. String literals in code are data, not prose, and are not scanned. A figure names
the folder it comes from: a path such as `results/nvidia-h200/2026-12-02b` or
`experiments/h200-2026-11-30/...` is a folder's name, not a date.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import sys
import tokenize
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Paths whose hits are reported (test_pending_files_are_reported) but tolerated: none; a path
# goes here only while another change rewrites it.
PENDING: set[str] = set()

# A figure names the folder it comes from (results/<machine>/<run>, experiments/<machine-date>/...):
# a folder's name is a path, not a date.
RESULTS_PATH = re.compile(r"(?<![\w-])(?:results|experiments)/[\w./-]*")
# A colour (`color: #222`) is not an issue number.
COLOUR = re.compile(r"(colou?r\s*[:=]\s*[\"']?)#[0-9a-f]{3,8}\b", re.I)
MARKS = {
    # "a warp issues 24 FMAs" is the verb: a count of something plural follows the number.
    "issue": re.compile(
        r"\bissues?\s+#\d+|\bissues?\s+\d+\b(?!\s+(?!(?:was|is|has|as|its|this)\b)[a-z][\w-]*s\b)"
        r"|(?<![\w&/#])#\d+\b|\b(?:the|this|that)\s+issue's",
        re.I,
    ),
    # A run folder's name (a date and a letter) standing without its results/ path is a date too:
    # a figure names the folder by its path.
    "date": re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[a-z]?\b"),
    # Seven to forty hex digits with both a digit and a letter, standing alone: `0x` constants,
    # arch names (sm_90a) and identifiers are joined to a word character and do not match.
    "revision": re.compile(
        r"(?<![\w/.$-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])"
        r"|\b(?:revision|commit)\s+[0-9a-f]{7,40}\b",
        re.I,
    ),
    "session": re.compile(
        r"\b(?:this|last|previous|prior|next|earlier|later)\s+session\b|\bsessions?\s+\d+\b"
        r"|\bstop\s+\d+x?\b",
        re.I,
    ),
}

SKIP_DIRS = {"results", "experiments", ".venv", "venv", "third_party", "third-party",
             "node_modules", "__pycache__", ".git", ".pytest_cache", "data"}
CODE_DIRS = ["bench", "gpu", "cpu", "common", "tests", "reports", "peers", "scripts", "cmake",
             "kernel-progress"]
CPP = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc", ".cxx"}


def history_marks(text: str) -> list[tuple[str, str]]:
    """(kind, text) of each issue number, date, revision or session word outside results paths."""
    return [(kind, m.group(0)) for kind, _, m in _matches(text)]


def _matches(text: str):
    text = COLOUR.sub(r"\1", RESULTS_PATH.sub(lambda m: "r" * len(m.group(0)), text))
    for kind, rx in MARKS.items():
        for m in rx.finditer(text):
            yield kind, text, m


# Prose of each kind of file, as (line number, text) pieces.


def cpp_comments(src: str) -> list[tuple[int, str]]:
    """The `//` and `/* */` comments of C++/CUDA source; string and char literals are skipped."""
    out, i, line, n = [], 0, 1, len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append((line, src[i + 2:j]))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(src[i + 2:j].split("\n")):
                out.append((line + k, part))
            line += src.count("\n", i, j)
            i = j + 2
        elif src.startswith('R"', i) and not (i and (src[i - 1].isalnum() or src[i - 1] == "_")):
            k = src.find("(", i + 2)
            delim = src[i + 2:k]
            j = src.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            line += src.count("\n", i, j)
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and src[i - 1].isalnum():  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def python_prose(src: str) -> list[tuple[int, str]]:
    """The `#` comments and the docstrings of Python source."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    lines = src.splitlines()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                doc = body[0]
                for k in range(doc.lineno, doc.end_lineno + 1):
                    out.append((k, lines[k - 1]))
    return out


def hash_comments(src: str) -> list[tuple[int, str]]:
    """`#` comments of shell, CMake and TOML: a `#` that starts a word outside quotes."""
    out = []
    for no, text in enumerate(src.splitlines(), 1):
        if no == 1 and text.startswith("#!"):
            continue
        quote = None
        for i, c in enumerate(text):
            if quote:
                if c == "\\" and quote == '"':
                    continue
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#" and (i == 0 or text[i - 1] in " \t;"):
                out.append((no, text[i + 1:]))
                break
    return out


def whole_text(src: str) -> list[tuple[int, str]]:
    return list(enumerate(src.splitlines(), 1))


def prose_of(path: Path):
    """How a file's prose is read, or None when the file holds none this test reads."""
    if path.suffix == ".md":
        return whole_text
    if path.suffix in CPP:
        return cpp_comments
    if path.suffix == ".py":
        return python_prose
    if path.suffix in (".sh", ".toml", ".cmake") or path.name == "CMakeLists.txt" \
            or path.name.startswith("requirements") and path.suffix == ".txt":
        return hash_comments
    return None


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CMakeLists.txt", *sorted((ROOT / "docs").rglob("*.md"))]
    for top in CODE_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            parts = path.relative_to(ROOT).parts
            if path.is_file() and not SKIP_DIRS.intersection(parts[:-1]) \
                    and not any(p.startswith("build") for p in parts[:-1]) and prose_of(path):
                files.append(path)
    return files


def blocks(pieces: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Pieces on consecutive lines joined, so that a mark broken over two lines is still found
    (two pieces of one line, a `/* */` and a `//` comment, joined with a space)."""
    out: list[tuple[int, str]] = []
    for no, text in pieces:
        last = out[-1][0] + out[-1][1].count("\n") if out else None
        if last is not None and no in (last, last + 1):
            out[-1] = (out[-1][0], out[-1][1] + ("\n" if no > last else " ") + text)
        else:
            out.append((no, text))
    return out


def hits_in(path: Path) -> list[str]:
    src = path.read_text(encoding="utf-8", errors="replace")
    rel = path.relative_to(ROOT).as_posix()
    hits = []
    for first, text in blocks(sorted(prose_of(path)(src))):
        for kind, seen, m in _matches(text):
            line = first + seen.count("\n", 0, m.start())
            hits.append((line, kind, " ".join(m.group(0).split())))
    return [f"{rel}:{no}: {kind} {mark!r}" for no, kind, mark in sorted(hits)]


def is_pending(rel: str) -> bool:
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in PENDING)


@functools.cache
def all_hits() -> dict[str, list[str]]:
    found = {}
    for path in scanned_files():
        hits = hits_in(path)
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


def test_no_history_in_docs_or_comments():
    found = {f: h for f, h in all_hits().items() if not is_pending(f)}
    lines = [h for hits in found.values() for h in hits]
    assert not lines, "history a reader cannot follow (git keeps it):\n" + "\n".join(lines)


def test_pending_files_are_reported():
    """Hits in PENDING files are tolerated for now, but said (pytest's warnings summary)."""
    assert all((ROOT / p).exists() for p in PENDING), "PENDING names a path that is not there"
    lines = [h for f, hits in all_hits().items() if is_pending(f) for h in hits]
    if lines:
        warnings.warn(f"{len(lines)} history marks tolerated in PENDING:\n" + "\n".join(lines))


def test_scan_covers_the_tree():
    names = {str(p.relative_to(ROOT)) for p in scanned_files()}
    for expected in ["README.md", "docs/method.md", "common/run_main.cpp", "gpu/vector_add.cu",
                     "cpu/vector_add.cpp", "common/harness.cpp", "scripts/run.sh",
                     "reports/src/twinbench/report/__init__.py", "tests/python/test_docs.py",
                     "kernel-progress/README.md", "CMakeLists.txt", "cmake/git_revision.cmake"]:
        assert expected in names
    assert not any(n.startswith(("results/", "experiments/", ".venv/")) for n in names)


# The scanner itself, on planted examples and on clean text.


@pytest.mark.parametrize(
    "text",
    ["see issue 37", "issues 26, 27", "fixed in #41", "(issue #12)", "on 2026-12-02 it",
     "revision f8f33ef", "(40175bc:", "at commit 0123abcd", "measured this session",
     "the last session found", "stop 4x", "the issue's bound", "issue\n  30)", "issue 27's limit",
     "the 2026-12-02b run", "sanitize-2026-12-01 alone", "issue 16 in progress"],
)
def test_history_marks_are_found(text):
    assert history_marks(text)


@pytest.mark.parametrize(
    "text",
    ["measured in results/nvidia-h200/2026-12-02b", "n:268435456", "mask 0x7fffffff", "sm_90a",
     "compute_100a", "ISCA 2010", "&#38;", "#pragma unroll", "#include <cstdint>", "deadbeef",
     "2^31 - 1", "1e-6", "float4", "the CDP session on one page", "pass 2 re-reads",
     "x86-64-v4", "b200", "step 1 of 3", "each k step issues 24\nFMAs", "a warp issues 2 loads",
     "color: #222; }", "experiments/h200-2026-11-30/conv2d_strips.md", "runs/run3.txt",
     "results/nvidia-h200/sanitize-2026-12-01: 25 s", "sha256 1a47f8f291f3928950e5b01665b9fbfc5234"
     "92518e2a93984dace28d7642ca03", "the issue slots busy", "in one pytest session"],
)
def test_ordinary_text_is_not_history(text):
    assert not history_marks(text)


def test_cpp_comments_leave_strings_out():
    src = ('int a = 1; // see issue 3\n'
           'const char* s = "issue 4 // not a comment";\n'
           '/* two\n   lines 2026-01-02 */ char c = \'"\';\n'
           'auto r = R"x(commit abc1234)x"; // after\n'
           'long n = 1\'000\'000; // issue 5\n')
    assert cpp_comments(src) == [(1, " see issue 3"), (3, " two"), (4, "   lines 2026-01-02 "),
                                 (5, " after"), (6, " issue 5")]


def test_python_prose_is_comments_and_docstrings():
    src = ('"""Module, issue 9."""\n'
           'X = "issue 10"  # issue 11\n'
           'def f():\n'
           '    """Line one.\n\n    revision 0a1b2c3d\n    """\n'
           '    return "2026-01-02"\n')
    prose = python_prose(src)
    marks = {(no, m) for no, t in prose for _, m in history_marks(t)}
    assert marks == {(1, "issue 9"), (2, "issue 11"), (6, "revision 0a1b2c3d")}


def test_hash_comments_skip_quotes_and_shebang():
    src = '#!/bin/bash\necho "#12 in a string" # issue 13\nn=${#list[@]}\n# 2026-01-02\n'
    assert hash_comments(src) == [(2, " issue 13"), (4, " 2026-01-02")]


def test_blocks_join_consecutive_lines():
    assert blocks([(3, "a"), (4, "b"), (4, "b again"), (7, "c")]) == [(3, "a\nb b again"), (7, "c")]


def test_planted_file_is_reported(tmp_path, monkeypatch):
    (tmp_path / "gpu").mkdir()
    (tmp_path / "gpu" / "k.cu").write_text(
        "// measured this session, issue 7\nint x; // ok\n"
        "/* seen in\n   revision 1a2b3c4 */ // see issue\n// 8\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert hits_in(tmp_path / "gpu" / "k.cu") == ["gpu/k.cu:1: issue 'issue 7'",
                                                   "gpu/k.cu:1: session 'this session'",
                                                   "gpu/k.cu:4: issue 'issue 8'",
                                                   "gpu/k.cu:4: revision 'revision 1a2b3c4'"]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
