return "main"
