"""``python -m judgekit`` runs the command line."""

from judgekit.cli import main

main()
