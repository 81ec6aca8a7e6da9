return "child"
