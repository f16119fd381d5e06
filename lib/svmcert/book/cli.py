"""The ``svmcert`` command (also ``python -m svmcert``)::

    svmcert book run [CHAPTER ...] [--quick] [-j N] [--keep-going] [-p NAME VALUE ...]
    svmcert book build [--quick] [--pdf]
    svmcert book check
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="svmcert", description="Run, build and check the svmcert book.")
    top = parser.add_subparsers(dest="group", required=True)
    book = top.add_parser("book", help="the Jupyter Book and its tables")
    sub = book.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="execute chapters with papermill and regenerate their tables and claims")
    run.add_argument("chapters", nargs="*", help="chapter names (notebook stems) or paths; default: all in _toc.yml")
    run.add_argument("--quick", action="store_true", help="small sizes; outputs go to _build/quick, never to data/")
    run.add_argument("-j", "--jobs", type=int, default=1, help="chapters to run in parallel processes")
    run.add_argument("--keep-going", action="store_true", help="run the remaining chapters after a failure")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                     help="papermill parameter for every chapter run (VALUE parsed as YAML: 500, 1e-3, true)")

    build = sub.add_parser("build", help="render _build/html from the executed chapters")
    build.add_argument("--quick", action="store_true", help="render the chapters executed with --quick")
    build.add_argument("--pdf", action="store_true",
                       help="the whole book as one PDF (XeLaTeX): _build/latex/svmcert.pdf instead of _build/html")

    sub.add_parser("check", help="compare regenerated tables and claims with the versions committed at HEAD")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    from .._optional import require

    try:   # the book pipeline is the [book] extra; the core library does not need it
        for module in ("yaml", "papermill", "pandas"):
            require(module, "book")
    except ImportError as exc:
        print(f"svmcert: {exc}", file=sys.stderr)
        return 2
    return _dispatch(args)


def _dispatch(args) -> int:
    import yaml

    if args.command == "run":
        from .runner import run_chapters, select_chapters, toc_notebooks

        if args.jobs < 1:
            print("svmcert: -j/--jobs: expected a whole number >= 1", file=sys.stderr)
            return 2
        try:
            jobs = select_chapters(toc_notebooks(), args.chapters)
        except ValueError as exc:
            print(f"svmcert: {exc}", file=sys.stderr)
            return 2
        params = {name: yaml.safe_load(value) for name, value in args.parameter}
        try:
            return run_chapters(jobs, quick=args.quick, jobs_in_parallel=args.jobs,
                                keep_going=args.keep_going, parameters=params)
        except KeyboardInterrupt as exc:
            from .lifecycle import Terminated

            print("interrupted: the chapters that were running committed nothing", file=sys.stderr)
            return 143 if isinstance(exc, Terminated) else 130
    if args.command == "build":
        from .build import build_book

        try:
            return build_book(quick=args.quick, pdf=args.pdf)
        except FileNotFoundError as exc:
            print(f"svmcert book build: {exc}", file=sys.stderr)
            return 1
    if args.command == "check":
        from .check import check_drift

        try:
            drift = check_drift()
        except (RuntimeError, FileNotFoundError) as exc:
            print(f"svmcert book check: {exc}", file=sys.stderr)
            return 2
        if not drift:
            print("book check: every table and claim agrees with HEAD within its declared tolerance")
            return 0
        for rel, problems in drift.items():
            print(f"DRIFT {rel}")
            for p in problems:
                print(f"  - {p}")
        print(f"book check: {len(drift)} file(s) drifted", file=sys.stderr)
        return 1
    return 2  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
