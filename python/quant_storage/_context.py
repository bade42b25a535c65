"""The MLIR context the package uses unless one is passed explicitly."""

from . import _qs

_default = None


def default_context():
    """The process-wide context (created on first use)."""
    global _default
    if _default is None:
        _default = _qs.Context()
    return _default
