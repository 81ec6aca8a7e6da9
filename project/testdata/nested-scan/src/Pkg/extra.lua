return "not synced"
