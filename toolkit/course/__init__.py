"""Course operations, not lessons: ``doctor`` (is this machine ready for the course?),
``demo`` (``python -m toolkit demo``: the lab end to end in a few seconds) and ``deploy``
(Binder and nbgitpuller links for a class)."""
