"""Part III: SVM feature elimination (Aksu). Not yet implemented."""
