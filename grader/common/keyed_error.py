"""An error that the reader sees as a catalogue sentence: the key of its text and the text's
parameters, which whoever catches it renders in the reader's language.

Side: both (no imports). The command line's usage errors, an LMS export it cannot read, shards
it refuses to merge and a notebook the check cannot find are all of this kind.
"""

from __future__ import annotations


class KeyedError(Exception):
    """A catalogue key (under the catcher's section) and the parameters of its sentence."""

    def __init__(self, key: str, **params: str) -> None:
        super().__init__(f"{key}: {params}")
        self.key = key
        self.params = params
