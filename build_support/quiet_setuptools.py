"""The project's build backend: setuptools' own, without its "Editable installation." notice.

Side: trusted (packaging; not part of the grader package). setuptools says that an editable
install maps the package through an import finder by raising a warning of its class
`InformationOnly` (its docstring: there is no clear way to show users a message through pip,
pypa/packaging-problems#558), so every first `make venv` printed a warning box. Only that class
is silenced, and only while an editable wheel is built: any real warning still shows, and
tests/test_packaging.py fails on one.
"""

from __future__ import annotations

import warnings

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (every PEP 517 hook, unchanged)


def build_editable(wheel_directory: str, config_settings: dict | None = None,
                   metadata_directory: str | None = None) -> str:
    """setuptools' build_editable, without the InformationOnly notice."""
    from setuptools.warnings import InformationOnly

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InformationOnly)
        return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
