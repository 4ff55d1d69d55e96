"""``python -m toolwire``: the ``toolwire`` command line."""

from toolwire.cli import main

if __name__ == "__main__":
    main()
