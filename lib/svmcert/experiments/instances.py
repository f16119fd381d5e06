"""Keyed instance streams for the drivers: the generators live on the library's floor
(:mod:`svmcert.instance_streams`, which :func:`svmcert.datasets.load_scaled` also uses for its row
subsets); the drivers import them from here."""

from ..instance_streams import InstanceStreams, instance_rng, key_words

__all__ = ["key_words", "instance_rng", "InstanceStreams"]
