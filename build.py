#!/usr/bin/env python3
"""Build the papercat site: `python build.py` reads content/ and writes site/. See --help."""

from papercat.cli import main

if __name__ == "__main__":
    main()
