return "skipped"
