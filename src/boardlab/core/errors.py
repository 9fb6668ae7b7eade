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
