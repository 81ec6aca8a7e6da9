return "y"
