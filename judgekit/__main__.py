"""``python -m judgekit`` runs the command line."""

from judgekit.cli import main

if __name__ == "__main__":
    main()
