"""Where courses already grade: the runners for Gradescope and PrairieLearn (trusted side).

Everything here runs above the grading path: one submission per container (`single`), the
autograder bundles and results files of the grading platforms (`gradescope`, `prairielearn`),
each a `Platform` (`platform`) that `export` reaches through the registry (`registry`), what a
bundle carries (`bundle`) and points scaled to an assignment's (`scaling`). An LMS (its
download's naming, its gradebook, its feedback zip) is an LMS target (`grader.results.lms`).
"""
