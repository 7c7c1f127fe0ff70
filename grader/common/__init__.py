"""What every stage of the pipeline shares: the ground floor of the layers (trusted side).

The lab registry and where the course's files are (`labs`), how a stub's TODOs are written
(`todo_format`), cleaning text that came from a student (`text`), writing a file atomically
(`atomic`) and ending a grader process (`shutdown`). Nothing here imports another part of the
grader, so every folder above may use it; the sandbox child (`grader.grading.child`) does not.
"""
