"""``python -m bioaccel``: the command line (see :mod:`bioaccel.cli`)."""
from .cli.main import console_main

if __name__ == "__main__":
    console_main()
