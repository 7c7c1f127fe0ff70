"""The semester: a ledger of every grading, the late policy, attempts, regrades, overrides, replay.

Side: trusted process (instructors' tools; nothing here runs student code but through `grading`).
"""
