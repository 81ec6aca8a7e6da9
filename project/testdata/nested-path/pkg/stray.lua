return "not synced: the folder holds a project"
