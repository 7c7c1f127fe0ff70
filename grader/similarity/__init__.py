"""Similarity across a class: what each student wrote, compared with what the others wrote.

Side: trusted process; nothing here runs student code, it only reads it. What a student handed
in, read as grading reads it (`sources`), with the code every student was given set apart
(`boilerplate`, `public_engines`); tokens normalized so that renaming, reordering and equivalent
rewrites do not hide a copy (`tokens`); winnowed fingerprints (`winnowing`, `fingerprints`);
every pair scored and ranked against the class's own distribution (`ranking`); the same rare
wrong value on the same hidden input, read from the score documents (`wrong_outputs`); and the
report an instructor reads (`report`, `regions`, `command`). Evidence to look at, never a verdict.
"""
