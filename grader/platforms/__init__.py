"""Where courses already grade: the runners for Gradescope and PrairieLearn (trusted side).

Everything here runs above the grading path: one submission per container (`single`), the
autograder bundles and results files of the grading platforms (`gradescope`, `prairielearn`),
what a bundle carries (`bundle`) and points scaled to an assignment's (`scaling`). Reading an
LMS's download is intake (`grader.intake.lms`); its gradebook files are results
(`grader.results.gradebook`, `grader.results.fill_in`).
"""
