"""Errors a user can cause and should read, as opposed to bugs.

The CLI and the web app print these as one clear line (or a 4xx response); any
other exception is a bug and keeps its traceback.
"""


class BoardlabError(Exception):
    """Something the user asked for cannot be done; the message says what and where."""


class SpecError(BoardlabError, ValueError):
    """A malformed game, agent or option specification."""


class IllegalActionError(BoardlabError, ValueError):
    """An action that is not legal in the current state."""


class FormatError(BoardlabError, ValueError):
    """A malformed file: the message names the file and the byte offset or line."""


class MissingDependencyError(BoardlabError, ImportError):
    """An optional package (an extra such as ``boardlab[openspiel]``) is needed and not installed."""

    def __init__(self, package: str, extra: str | None, purpose: str, install: str | None = None) -> None:
        install = install or f"pip install 'boardlab[{extra}]'"
        super().__init__(f"{purpose}: {package} is not installed ({install})")
        self.package = package
        self.extra = extra


def require(module: str, package: str, extra: str, purpose: str):
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(package, extra, purpose) from None
