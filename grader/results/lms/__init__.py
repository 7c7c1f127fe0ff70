"""The LMS targets: one module per LMS (`canvas`, `moodle`), each an `LmsTarget` (`target`), listed
by `registry`; the downloaded gradebook as rows (`sheet`) and filled in by its target (`fill_in`).

Side: trusted (intake of an LMS download, class files).
"""
