"""The MLIR context the package uses unless one is passed explicitly."""

from . import _qs

_default = None


def default_context():
    """The process-wide context (created on first use)."""
    global _default
    if _default is None:
        _default = _qs.Context()
    return _default


def check_chip(chip):
    """`chip` if it names a chip (sm_<major><minor>[a|f]: the form qs.chip
    and the pipelines' chip option take); TypeError/ValueError otherwise,
    before it reaches IR or pipeline text."""
    if not isinstance(chip, str):
        raise TypeError(f"chip must be a str such as 'sm_90a', got {chip!r}")
    if not _qs.chip_is_valid(chip):
        raise ValueError(f"chip must be of the form sm_<major><minor>[a|f] "
                         f"(sm_90a, sm_100a), got {chip!r}")
    return chip
