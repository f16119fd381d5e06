"""Peer benchmarks: the library's solvers against the tools a practitioner would otherwise pick.

Each module holds the measurement of one comparison as importable functions; the runner scripts
``benchmarks/peers_*.py`` call them and write CSV files under ``benchmarks/results/``. The book's
page ``book/benchmarks/peers.ipynb`` reads those files back through :mod:`.report` (with
``sys.path`` pointing at ``benchmarks/``) and runs no solver.

- :mod:`.common`: timing (best CPU and wall time of several calls), provenance (machine,
  versions, date), problems (data sets, sign patterns), CSV output.
- :mod:`.linear`: ``signsvm.solve`` against liblinear (free signs) and ReHLine (nonnegative and
  mixed signs), accuracy matched on the objective.
- :mod:`.kernel`: ``screening.fit_weighted_svm`` against libsvm on the mirrored, intercept-free
  weighted kernel SVM.
- :mod:`.floor`: passes over X to certify, and scaling in n.
- :mod:`.dcd_reference`: a plain compiled pass of Hsieh et al.'s dual coordinate descent, the
  yardstick of ``peers_diagnose.py`` (diagnostic only, certifies nothing).
- :mod:`.curves`: benchopt's result file as suboptimality-vs-time rows.
- :mod:`.report`: the committed results read back for the book (tables, summaries, column classes).
"""
