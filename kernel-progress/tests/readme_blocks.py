"""The README's fenced code blocks, and the diff it shows between the article's program and
the same program with kernel-progress (generated from examples/, without the files' docstrings)."""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of each fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def _docstring_end(source: str) -> int:
    """The last line of the module's docstring (0 when it has none)."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[0].end_lineno
    return 0


def article_diff(context: int = 1) -> str:
    """The unified diff from article_original.py to article_progress.py, less the hunks in
    their docstrings (what each file is, not what changed in the program)."""
    old = (EXAMPLES / "article_original.py").read_text()
    new = (EXAMPLES / "article_progress.py").read_text()
    skip = max(_docstring_end(old), _docstring_end(new))
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "article_original.py",
                                      "article_progress.py", n=context, lineterm=""))
    out, keep = lines[:2], False
    for line in lines[2:]:
        m = HUNK.match(line)
        if m:
            keep = int(m.group(1)) > skip
        if keep:
            out.append(line)
    return "\n".join(out) + "\n"


def changed_lines(diff: str) -> dict[str, tuple[int, int]]:
    """Lines removed and added in the diff, by where they are in the new program: "kernel"
    (inside a @cuda.jit function), "host" (inside another function) or "module" (imports)."""
    new = (EXAMPLES / "article_progress.py").read_text()
    old = (EXAMPLES / "article_original.py").read_text()

    def regions(source):
        where = {}
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                jit = any("jit" in ast.unparse(d) for d in node.decorator_list)
                kind = "kernel" if jit else "host"
                for line in range(node.lineno, node.end_lineno + 1):
                    where[line] = kind
        return where

    new_where, old_where = regions(new), regions(old)
    counts = {"kernel": [0, 0], "host": [0, 0], "module": [0, 0]}
    old_line = new_line = 0
    for line in diff.splitlines()[2:]:
        m = HUNK.match(line)
        if m:
            old_line, new_line = int(m.group(1)), int(m.group(3))
        elif line.startswith("-"):
            counts[old_where.get(old_line, "module")][0] += 1
            old_line += 1
        elif line.startswith("+"):
            counts[new_where.get(new_line, "module")][1] += 1
            new_line += 1
        else:
            old_line += 1
            new_line += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}


if __name__ == "__main__":
    d = article_diff()
    print(d, end="")
    print(changed_lines(d))
