"""The code that draws the pack's nine figures into ``figures/`` (matplotlib), kept outside
``toolkit/`` because no notebook runs it: notebooks only show the drawn files, through
``toolkit.figures.show``. A developer redraws them from the repository's root with
``python -m scripts.figures`` (``--check`` compares instead of writing; ``make test`` runs the
comparison in tests/test_figures.py). A wheel does not carry this package.
"""
