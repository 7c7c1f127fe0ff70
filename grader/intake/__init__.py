"""Intake: what a student handed in, turned into one clean folder per lab.

Side: trusted process; nothing here runs student code. A folder, a zip, bare files or a
notebook (`collect`, `candidates`, `notebook_module`), an LMS's bulk download and its naming of
students (`lms`), the one set of rules both read a zip by (`archive`), and the static policy
scan of the sources (`policy`).
"""
