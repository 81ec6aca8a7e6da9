return "a"
