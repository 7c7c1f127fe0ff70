"""Where courses already grade: Gradescope, PrairieLearn, Canvas and Moodle (trusted side).

Everything here reads or writes other systems' formats around the canonical score document:
LMS bulk downloads in (`lms`), gradebook files out (`gradebook`), and the autograder bundles
and results files of the grading platforms (`gradescope`, `prairielearn`).
"""
