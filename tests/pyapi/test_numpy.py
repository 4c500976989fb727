"""One answer to NumPy 2.5 and numba-cuda: a version bound, the same in every package of the
project, and a real compile, never a patch of NumPy at import.

numba-cuda 0.30.4 registers an overload of np.row_stack, which NumPy 2.5 removed, so its first
CUDA compile fails there. The simulator never compiles: the PTX compile below (ptx_driver.py, in
this interpreter without the simulator, from the installed package under scripts/test-pyapi.sh)
is what fails when a NumPy that breaks numba-cuda is installed."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

from conftest import HERE, REPO, env

# Where the project states the bound: kernel-progress's dependencies, the twinbench package's
# `numba` extra, and the peers' requirements.
KERNEL_PROGRESS = REPO / "kernel-progress" / "pyproject.toml"
REPORTS = REPO / "reports" / "pyproject.toml"
PEERS = REPO / "peers" / "numba" / "requirements.txt"


def numpy_requirements() -> dict[str, list[str]]:
    import tomllib
    kp = tomllib.loads(KERNEL_PROGRESS.read_text())["project"]["dependencies"]
    extra = tomllib.loads(REPORTS.read_text())["project"]["optional-dependencies"]["numba"]
    peers = [line.strip() for line in PEERS.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    return {path.relative_to(REPO).as_posix(): [r for r in reqs if re.match(r"numpy\b", r)]
            for path, reqs in ((KERNEL_PROGRESS, kp), (REPORTS, extra), (PEERS, peers))}


def test_every_package_states_the_same_numpy_bound_with_its_reason():
    specs = numpy_requirements()
    assert all(len(s) == 1 for s in specs.values()), specs
    assert len({s[0] for s in specs.values()}) == 1, specs
    assert "<2.5" in next(iter(specs.values()))[0]
    for path, (req,) in specs.items():
        lines = (REPO / path).read_text().splitlines()
        at = next(i for i, line in enumerate(lines) if req in line)
        assert "row_stack" in "\n".join(lines[max(0, at - 3):at]), \
            f"{path}: the bound's reason is not beside it"


def _numpy_aliases(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name for a in node.names if a.name == "numpy"}
    return names


def numpy_assignments(source: str) -> list[int]:
    """Lines that assign an attribute of the numpy module, or setattr it."""
    tree = ast.parse(source)
    aliases = _numpy_aliases(tree)
    lines = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                    and t.value.id in aliases:
                lines.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "setattr" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in aliases:
            lines.append(node.lineno)
    return lines


def test_the_scan_finds_an_assignment_to_numpy():
    alias = "an_alias"   # the sources below are made, so that no line here assigns to numpy
    assert numpy_assignments(f"import numpy as np\nnp.{alias} {'='} np.vstack\n") == [2]
    assert numpy_assignments(f"import numpy\nsetattr(numpy, '{alias}', numpy.vstack)\n") == [2]
    assert numpy_assignments(f"import numpy as np\nx = np.{alias}\n") == []


def test_nothing_in_the_repository_assigns_to_numpy():
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                            "*.py"], cwd=REPO, capture_output=True, text=True, check=True)
    found = {}
    for name in files.stdout.split():
        path = REPO / name
        if not path.is_file():
            continue
        try:
            lines = numpy_assignments(path.read_text())
        except SyntaxError:
            continue
        if lines:
            found[name] = lines
    assert not found, f"numpy's attributes assigned: {found}"


def test_importing_twinbench_bench_patches_nothing_into_numpy():
    code = ("import numpy as np; before = set(dir(np)); import twinbench.bench, "
            "twinbench.bench.timing, twinbench.bench.session, twinbench.bench.cli; "
            "print(sorted(set(dir(np)) - before))")
    r = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_real_kernels_compile_to_ptx_with_the_installed_numpy():
    e = env()
    e.pop("NUMBA_ENABLE_CUDASIM")
    r = subprocess.run([sys.executable, str(HERE / "ptx_driver.py")], env=e,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    failed = {k: v["error"] for k, v in got["kernels"].items() if not v["ok"]}
    assert not failed, f"numpy {got['numpy']}, numba-cuda {got['numba_cuda']}: {failed}"
    assert {"docs/add_gpu", "harness/l2_flush", "ceilings/triad"} <= set(got["kernels"])
