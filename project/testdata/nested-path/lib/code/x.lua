return "x"
