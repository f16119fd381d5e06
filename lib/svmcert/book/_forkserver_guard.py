"""Preloaded by the runner's forkserver only (never imported elsewhere): the forkserver ends when the
runner that started it ends, even if the runner was killed outright, so the chapter workers it forked
get their own parent-death signal (:func:`svmcert.book.lifecycle.die_with_parent`) and stop too."""

import signal

from .lifecycle import die_with_parent

die_with_parent(signal.SIGKILL)
