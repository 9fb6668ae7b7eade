"""The building blocks of boardlab's commands, shared by the command line and the studies:
:mod:`~boardlab.commands.console` (console, ``--json``, progress, errors) and
:mod:`~boardlab.commands.plugin` (the recipes and experiments that entry points name)."""
