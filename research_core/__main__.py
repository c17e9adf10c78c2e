"""`python -m research_core`: Arbor's command line (the commands live in `research_core.cli`)."""

import sys

from research_core.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
