"""One package per study: its experiments, training recipes and loops, the networks only it uses,
and its commands, registered by entry points (``boardlab.recipes``, ``boardlab.experiments``).
Studies never import each other; docs/adding-a-study.md shows the shape."""
