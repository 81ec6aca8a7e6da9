return "m"
