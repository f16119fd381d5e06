"""Peer benchmarks: the library's solvers against the tools a practitioner would otherwise pick.

Each module holds the measurement of one comparison as importable functions (the book's
Benchmarks chapter can call them with ``sys.path`` pointing at ``benchmarks/``); the runner
scripts ``benchmarks/peers_*.py`` call them and write one CSV under ``benchmarks/results/``.

- :mod:`.common`: timing (best CPU and wall time of several calls), provenance (machine,
  versions, date), problems (data sets, sign patterns), CSV output.
- :mod:`.linear`: ``signsvm.solve`` against liblinear (free signs) and ReHLine (nonnegative and
  mixed signs), accuracy matched on the objective.
- :mod:`.kernel`: ``screening.fit_weighted_svm`` against libsvm on the mirrored, intercept-free
  weighted kernel SVM.
- :mod:`.floor`: passes over X to certify, and scaling in n.
"""
