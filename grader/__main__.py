"""Entry point for `python -m grader`."""

from grader.cli import main
from grader.common.shutdown import finish

finish(main())
