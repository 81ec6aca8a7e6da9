return "g"
