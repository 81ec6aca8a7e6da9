return "B"
