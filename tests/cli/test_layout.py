"""The package layout setuptools installs without an import hook: src/fstheory is the folder
fstheory/, whose subpackages are the top-level folders (pyproject.toml's comment). An editable
install is then one static .pth entry for src/ (nothing else of the checkout on sys.path), and
setuptools has no reason for its warning about folders named like the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_the_package_dir_is_the_plain_src_layout():
    assert CONFIG["package-dir"] == {"": "src"}


def test_every_package_is_its_top_level_folder_under_src():
    for package in CONFIG["packages"]:
        parts = package.split(".")
        under_src = ROOT / "src" / Path(*parts)
        folder = ROOT / Path(*parts[1:]) if len(parts) > 1 else ROOT / "fstheory"
        assert under_src.is_dir(), package
        assert under_src.resolve() == folder.resolve(), package
        if not package.endswith(".data"):
            assert (under_src / "__init__.py").is_file(), package


def test_src_holds_nothing_but_the_package():
    assert [p.name for p in (ROOT / "src").iterdir() if not p.name.endswith(".egg-info")] == ["fstheory"]


def test_the_installed_package_is_the_checkout_or_a_wheel_not_a_hook():
    import sys

    import fstheory

    hooks = [f for f in sys.meta_path if "__editable__" in type(f).__module__]
    assert hooks == []
    assert Path(fstheory.__file__).resolve() == (ROOT / "fstheory" / "__init__.py").resolve() \
        or "site-packages" in fstheory.__file__
