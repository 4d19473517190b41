"""`python -m toolgrade`."""

from toolgrade.cli import main

if __name__ == "__main__":
    main()
