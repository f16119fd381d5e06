"""Sphinx extension for the book's API reference part (``book/api``), listed in ``_config.yml``.

The summary table at the top of each API page (``autosummary``) shows the first sentence of
every docstring. Sphinx ends that sentence at the first period followed by a space unless the
text before it ends with one of a few abbreviations ("e.g.", "i.e.", "et al."). The library's
docstrings cite the papers as "eq. (14)", "eqs. 18-23", "Sec. 4" and "App. E.2", which would cut
a summary such as "Maximise the dual (eq. 9) by Frank-Wolfe ..." to "Maximise the dual (eq.".
This extension adds those abbreviations.
"""

from __future__ import annotations

__all__ = ["CITATION_ABBREVIATIONS", "setup"]

#: Abbreviations after which a docstring's first sentence goes on.
CITATION_ABBREVIATIONS = ("eq.", "eqs.", "Eq.", "Eqs.", "Sec.", "Secs.", "App.", "Thm.", "cf.", "resp.")


def setup(app):
    """Register the abbreviations with ``sphinx.ext.autosummary`` (which must be loaded)."""
    from sphinx.ext import autosummary

    app.setup_extension("sphinx.ext.autosummary")
    known = tuple(autosummary.WELL_KNOWN_ABBREVIATIONS)
    autosummary.WELL_KNOWN_ABBREVIATIONS = known + tuple(a for a in CITATION_ABBREVIATIONS if a not in known)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
