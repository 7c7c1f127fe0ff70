"""The trusted side of the boundary: starting, limiting, jailing and reaping sandbox children.

Side: trusted process. Student code runs only in the children these modules start; the code
those children run lives in `grader.grading.child`.
"""

from grader.grading.sandbox.sandbox import Limits, Outcome, Sandbox

__all__ = ["Limits", "Outcome", "Sandbox"]
