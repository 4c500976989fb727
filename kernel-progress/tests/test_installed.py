"""What is tested is what is meant: the installed package when KERNEL_PROGRESS_TEST_INSTALLED=1
(with its metadata), else the checkout's src/."""

import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

import kernel_progress as kp
from conftest import INSTALLED, ROOT, SRC


def test_the_package_comes_from_where_it_should():
    where = Path(kp.__file__).resolve()
    if INSTALLED:
        site = Path(sysconfig.get_paths()["purelib"]).resolve()
        assert site in where.parents, f"{where} is not the installed package (in {site})"
    else:
        assert SRC.resolve() in where.parents, where


@pytest.mark.skipif(not INSTALLED, reason="the metadata of an installed wheel")
def test_the_installed_metadata():
    md = metadata.metadata("kernel-progress")
    assert md["Version"] == kp.__version__
    assert md["License-Expression"] == "Apache-2.0"
    assert md["Requires-Python"] == ">=3.10"
    requires = metadata.requires("kernel-progress")
    plain = [r for r in requires if "extra ==" not in r]
    assert any(r.startswith("numba-cuda") for r in plain), plain
    assert any(r.startswith("tqdm") for r in plain), plain
    files = [str(f) for f in metadata.files("kernel-progress")]
    assert any(f.endswith("licenses/LICENSE") for f in files), files
    classifiers = md.get_all("Classifier")
    assert "Environment :: GPU :: NVIDIA CUDA" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")], \
        "the SPDX expression states the licence (a licence classifier beside it is an error)"


def test_the_shipped_licence_is_the_repository_s():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0" in text
    repo_licence = ROOT.parent / "LICENSE"
    if (ROOT.parent / "kernel-progress").is_dir() and repo_licence.is_file():
        assert repo_licence.read_text() == text


def test_importing_patches_nothing_into_numpy():
    import subprocess
    code = ("import numpy as np; before = set(dir(np)); import kernel_progress; "
            "print(sorted(set(dir(np)) - before))")
    from conftest import env_with_simulator
    r = subprocess.run([sys.executable, "-c", code], env=env_with_simulator(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]"
