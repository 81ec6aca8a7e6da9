return "not an init file"
