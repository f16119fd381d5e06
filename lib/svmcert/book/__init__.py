"""The book pipeline: chapter helpers (used inside notebooks) and the papermill runner/CLI."""

from .chapter import Chapter, current_chapter, glue, save_figure, save_table, start_chapter
from .paths import data_dir, output_dir, project_root

__all__ = ["Chapter", "start_chapter", "current_chapter", "save_table", "save_figure", "glue",
           "project_root", "data_dir", "output_dir"]
