"""Drivers of Part II's chapters (Hanada et al., distributionally robust safe screening), one module per
chapter of ``book/safe-screening/`` and named after it; ``drsss_*`` and ``weighted_erm_conjugates``
belong to the chapters whose names they start with."""
