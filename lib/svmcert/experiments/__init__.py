"""Experiment drivers behind the book's chapters (instance families, comparison loops, timings).

Chapters call these so that no algorithm or measurement loop lives only in a notebook.
"""
