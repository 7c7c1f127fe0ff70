"""Per-lab verdicts: trusted-side judgement of what each lab's scenarios return.

Side: trusted process.
"""
