"""boardlab: a laboratory for AI players of board games."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

try:
    __version__ = _version("boardlab")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
