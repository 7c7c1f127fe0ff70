"""Scenarios per lab: the code that drives a submission inside the sandbox (not secret).

Side: sandbox child.
"""
