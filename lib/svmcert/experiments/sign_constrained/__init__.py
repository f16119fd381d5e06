"""Drivers of Part I's chapters (Tajima et al., sign-constrained SVMs), one module per chapter of
``book/sign-constrained/`` and named after it; ``line_search_lemma3`` and ``svm_pairwise_tables``
belong to the chapters whose names they start with."""
