return "dup"
