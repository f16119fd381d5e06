"""Drivers of Part III's chapters (Aksu, SVM feature elimination), one module per chapter of
``book/feature-elimination/`` and named after it."""
