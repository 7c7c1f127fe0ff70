"""Grading: a class in shards, the pytest plugin, the checks, the sandbox, the child.

Side: trusted, except `child` (the sandbox side). Layered top to bottom, as pyproject.toml's
contracts check: `batch` (the one grading path; `merging` joins its shards) > `shard` (one
pytest process and its plan) > `plugin` > `checking` > `sandbox` > `child`. The hidden suites
(`suites/`) are pytest files the shards run, not modules.
"""
